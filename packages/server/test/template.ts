import pg from 'pg';
import { pino } from 'pino';
import { allJobs } from '../src/modules';
import { migrate } from '../src/platform/migrations';
import { startQueue } from '../src/platform/queue';

export const TEMPLATE_DATABASE = 'sendwell_test_template';

export const databaseUrl = (adminUrl: string, database: string) => adminUrl.replace(/\/[^/]*$/, `/${database}`);

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Migrates one template database (our tables and pg-boss's) so each test file's database
 * is a fast `create database … template` copy instead of a fresh migration.
 */
export const prepareTemplate = async (adminUrl: string) => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${quote(TEMPLATE_DATABASE)}`);
    await admin.query(`create database ${quote(TEMPLATE_DATABASE)}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(adminUrl, TEMPLATE_DATABASE);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool);
  await pool.end();
  const queue = await startQueue({ url, jobs: allJobs, isWorker: false, onError: (error) => pino().error(error) });
  await queue.stop();
};

export const createDatabaseFromTemplate = async (adminUrl: string, database: string) => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${quote(database)} template ${quote(TEMPLATE_DATABASE)}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(adminUrl, database);
};
