import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';

export const MIGRATIONS_DIR = new URL('../../migrations', import.meta.url).pathname;

/** The migration files of this build, in the order they run. */
export const migrationFiles = (dir = MIGRATIONS_DIR) =>
  fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort();

// Any constant works; it only has to be the same in every Sendwell process.
const MIGRATION_LOCK_ID = 720_431_877;

/**
 * Applies the SQL files in `migrations/` in name order, each in its own transaction,
 * recording them in `schema_migrations`. An advisory lock lets several processes start
 * at once against one database: the first migrates, the others wait and find nothing
 * left to do. Files are forward only; an applied file is never run again.
 */
export const migrate = async (
  pool: pg.Pool,
  dir = MIGRATIONS_DIR,
  /** Only these files (a backup's), for a restore that loads data shaped by them before the rest run. */
  { only }: { only?: ReadonlySet<string> } = {},
): Promise<string[]> => {
  const files = migrationFiles(dir).filter((file) => !only || only.has(file));
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const { rows } = await client.query<{ name: string }>('select name from schema_migrations');
    const done = new Set(rows.map((row) => row.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into schema_migrations (name) values ($1)', [file]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new Error(`Migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    // A session lock: an unlock that fails means the session is broken, and the lock ended with it.
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    client.release();
  }
  return applied;
};
