import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { PassThrough, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { TConfig } from './config';
import { createDatabase } from './db';
import { embeddedDatabaseOf } from './embedded-postgres';
import { migrate, migrationFiles } from './migrations';

/**
 * `npm run admin -- backup FILE` and `restore FILE` (issue 48 §5).
 *
 * The embedded PostgreSQL package ships `initdb`, `pg_ctl` and `postgres` only, not
 * `pg_dump`/`pg_restore` (and a machine's own `pg_dump` must be at least the server's major
 * version: Debian 12's 15 refuses an 18 server). So a backup is Sendwell's own: every table
 * of the `public` schema copied out (`COPY … TO STDOUT`, PostgreSQL's text format) inside one
 * read-only repeatable-read transaction, so the tables are as they were at one instant,
 * whatever runs meanwhile; with the list of migrations the data is shaped by and the master
 * secret (`DATA_DIR/secret.key`) when it is a file. Media live in PostgreSQL, so they are in it.
 * The job queue (`pgboss`) is not: the workers' ticks find what was left to do.
 *
 * The file is gzip of lines: `SENDWELL-BACKUP 1`, the manifest (JSON), then per table a
 * `@@TABLE <name>` line, its COPY rows and the `\.` line COPY's text format ends with (a row
 * never holds a bare newline: COPY escapes it), then `@@SECRET <base64>` when there is one,
 * and `@@END`.
 */
const MAGIC = 'SENDWELL-BACKUP 1';

type TManifest = {
  createdAt: string;
  migrations: string[];
  tables: { name: string; columns: string[]; rows: number }[];
  /** `file`: the master secret is in the backup; `environment`: SECRET_KEY was set, keep it yourself. */
  secret: 'file' | 'environment';
};

/** Opens the database a command works on: DATABASE_URL, or the embedded one under DATA_DIR (joined if running). */
const openDatabase = async (config: TConfig) => {
  const embedded = await embeddedDatabaseOf(config, { adoptOrphan: false });
  const database = createDatabase(config.databaseUrl ?? embedded!.url, {
    poolSize: 2,
    idleInTransactionTimeoutMs: 3_600_000,
  });
  return {
    pool: database.pool,
    close: async () => {
      await database.close();
      await embedded?.stop();
    },
  };
};

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The tables of `public` (our migrations' record left out: a restore writes its own), with their columns in order. */
const tablesOf = async (client: pg.PoolClient) => {
  const { rows } = await client.query<{ table_name: string; columns: string[] }>(`
    select c.table_name, array_agg(c.column_name::text order by c.ordinal_position) as columns
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.table_name <> 'schema_migrations'
       and c.is_generated = 'NEVER'
     group by c.table_name
     order by c.table_name`);
  return rows.map((row) => ({ name: row.table_name, columns: row.columns }));
};

const secretFileOf = (config: TConfig) => path.join(config.dataDir, 'secret.key');

const writeLine = (out: Writable, line: string) =>
  new Promise<void>((resolve, reject) => {
    if (out.write(`${line}\n`)) resolve();
    else out.once('drain', resolve).once('error', reject);
  });

/** Writes a consistent backup of the whole database (and the master secret, when it is a file) to `file`. */
export const backupTo = async (config: TConfig, file: string) => {
  const database = await openDatabase(config);
  const temporary = `${file}.partial`;
  try {
    const client = await database.pool.connect();
    try {
      await client.query('begin isolation level repeatable read read only');
      const found = await tablesOf(client);
      const { ordered, selfReferring } = await loadOrder(
        client,
        found.map((table) => table.name),
      );
      const tables = ordered.map((name) => found.find((table) => table.name === name)!);
      const { rows: applied } = await client.query<{ name: string }>(
        'select name from schema_migrations order by name',
      );
      const counts = await Promise.all(
        tables.map(async (table) =>
          Number((await client.query(`select count(*) from public.${quoted(table.name)}`)).rows[0].count),
        ),
      );
      // SECRET_KEY in the environment is the operator's to keep; a generated one is the file's.
      const secretFile = secretFileOf(config);
      if (!config.secretKey && !fs.existsSync(secretFile)) {
        throw new Error(
          `Neither SECRET_KEY nor ${secretFile} is here: run the backup where Sendwell runs, with its DATA_DIR.`,
        );
      }
      const secret = config.secretKey ? null : fs.readFileSync(secretFile, 'utf8').trim();
      const manifest: TManifest = {
        createdAt: new Date().toISOString(),
        migrations: applied.map((row) => row.name),
        tables: tables.map((table, index) => ({ ...table, rows: counts[index]! })),
        secret: secret === null ? 'environment' : 'file',
      };
      const lines = new PassThrough();
      const written = pipeline(lines, createGzip(), fs.createWriteStream(temporary, { mode: 0o600 }));
      await writeLine(lines, MAGIC);
      await writeLine(lines, JSON.stringify(manifest));
      for (const table of tables) {
        await writeLine(lines, `@@TABLE ${table.name}`);
        const columns = table.columns.map(quoted).join(', ');
        // A table naming itself is copied in id order: a row's parent (an earlier id) comes first.
        const source = selfReferring.has(table.name)
          ? `(select ${columns} from public.${quoted(table.name)} order by id)`
          : `public.${quoted(table.name)} (${columns})`;
        const rows = client.query(copyTo(`copy ${source} to stdout`));
        for await (const chunk of rows) {
          if (!lines.write(chunk)) await new Promise((resolve) => lines.once('drain', resolve));
        }
        await writeLine(lines, '\\.');
      }
      if (secret !== null) await writeLine(lines, `@@SECRET ${Buffer.from(secret).toString('base64')}`);
      await writeLine(lines, '@@END');
      lines.end();
      await written;
      await client.query('commit');
      fs.renameSync(temporary, file);
      return manifest;
    } finally {
      client.release();
    }
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    await database.close();
  }
};

/** Reads a backup's lines (gunzipped), keeping the order. */
const linesOf = (file: string) =>
  readline.createInterface({
    input: fs.createReadStream(file).pipe(createGunzip()),
    crlfDelay: Number.POSITIVE_INFINITY,
  });

/** The manifest and secret of a backup, read before anything is changed. */
const readHeader = async (file: string) => {
  let manifest: TManifest | null = null;
  let secret: string | null = null;
  let index = 0;
  for await (const line of linesOf(file)) {
    if (index === 0 && line !== MAGIC) throw new Error(`${file} is not a Sendwell backup.`);
    if (index === 1) manifest = JSON.parse(line) as TManifest;
    if (line.startsWith('@@SECRET ')) secret = Buffer.from(line.slice('@@SECRET '.length), 'base64').toString('utf8');
    if (line === '@@END' && manifest) return { manifest, secret };
    index += 1;
  }
  throw new Error(`${file} ends before its end: the backup is incomplete.`);
};

/**
 * The tables in an order where each comes after those its foreign keys name (a row's parent
 * is in before it), so a restore checks every key as rows arrive, without a superuser; and
 * which tables name themselves (their rows are copied in id order, parents first).
 */
const loadOrder = async (client: pg.PoolClient, names: string[]) => {
  const { rows } = await client.query<{ child: string; parent: string }>(`
    select cc.relname as child, pc.relname as parent
      from pg_constraint c
      join pg_class cc on cc.oid = c.conrelid
      join pg_class pc on pc.oid = c.confrelid
      join pg_namespace n on n.oid = c.connamespace
     where c.contype = 'f' and n.nspname = 'public'`);
  const parents = new Map(names.map((name) => [name, new Set<string>()]));
  const selfReferring = new Set<string>();
  for (const row of rows) {
    if (row.child === row.parent) selfReferring.add(row.child);
    else parents.get(row.child)?.add(row.parent);
  }
  const ordered: string[] = [];
  const done = new Set<string>();
  const visit = (name: string, visiting: Set<string>) => {
    if (done.has(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const parent of parents.get(name) ?? []) if (parents.has(parent)) visit(parent, visiting);
    done.add(name);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return { ordered, selfReferring };
};

/**
 * Restores a backup into an empty database (a new data directory, or an empty external
 * database): the master secret first (so the stored credentials open), the backup's own
 * migrations, every table's rows with the tables' own triggers off (counters arrive as they
 * were, not counted twice), the identity sequences moved past the rows, then the migrations
 * this build has beyond the backup's. One transaction for the data: a failed restore leaves
 * nothing half-written.
 */
export const restoreFrom = async (config: TConfig, file: string) => {
  const { manifest, secret } = await readHeader(file);
  const known = new Set(migrationFiles());
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `This backup is from a newer Sendwell (migration ${unknown[0]} is not in this one). Upgrade first.`,
    );
  }
  if (secret !== null && config.secretKey && config.secretKey !== secret) {
    throw new Error(
      'SECRET_KEY is set to another secret than the backup’s: unset it (the backup’s secret.key is written) or set it to that secret.',
    );
  }
  if (secret !== null && !config.secretKey) {
    const secretFile = secretFileOf(config);
    if (fs.existsSync(secretFile) && fs.readFileSync(secretFile, 'utf8').trim() !== secret) {
      throw new Error(`${secretFile} holds another secret: restore into a new data directory.`);
    }
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(secretFile, secret, { mode: 0o600 });
  }
  const database = await openDatabase(config);
  try {
    const client = await database.pool.connect();
    try {
      const { rows } = await client.query<{ exists: boolean }>(
        `select exists (select 1 from information_schema.tables where table_schema = 'public' and table_name = 'users') as exists`,
      );
      if (rows[0]?.exists && Number((await client.query('select count(*) from users')).rows[0].count) > 0) {
        throw new Error(
          'This database already holds users: restore into an empty one (a new DATA_DIR, or a new database).',
        );
      }
    } finally {
      client.release();
    }
    await migrate(database.pool, undefined, { only: new Set(manifest.migrations) });
    const loader = await database.pool.connect();
    try {
      await loader.query('begin');
      const byName = new Map(manifest.tables.map((table) => [table.name, table]));
      // What the migrations seeded (plans, the starting templates) is in the backup as it was then.
      await loader.query(`truncate ${manifest.tables.map((table) => `public.${quoted(table.name)}`).join(', ')}`);
      // Tables come in the order they load in (parents first); each one's rows stream into its COPY.
      let copying: { name: string; stream: Writable; done: Promise<void> } | null = null;
      for await (const line of linesOf(file)) {
        if (copying === null) {
          if (!line.startsWith('@@TABLE ')) continue;
          const name = line.slice('@@TABLE '.length);
          const table = byName.get(name);
          if (!table) throw new Error(`The backup's table ${name} is not in its manifest.`);
          // The table's own triggers (counters kept by triggers) stay off: the counters arrive as they were.
          await loader.query(`alter table public.${quoted(name)} disable trigger user`);
          const stream = loader.query(
            copyFrom(`copy public.${quoted(name)} (${table.columns.map(quoted).join(', ')}) from stdin`),
          );
          copying = { name, stream, done: finished(stream) };
          continue;
        }
        if (line === '\\.') {
          copying.stream.end();
          await copying.done;
          await loader.query(`alter table public.${quoted(copying.name)} enable trigger user`);
          copying = null;
          continue;
        }
        if (!copying.stream.write(`${line}\n`)) await once(copying.stream, 'drain');
      }
      if (copying !== null) throw new Error(`${file} ends inside the table ${copying.name}: the backup is incomplete.`);
      const client = loader;
      // Identity and serial columns go on after the highest id restored.
      const { rows: sequences } = await client.query<{ table_name: string; column_name: string; sequence: string }>(`
        select c.table_name, c.column_name, pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as sequence
          from information_schema.columns c
         where c.table_schema = 'public' and pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) is not null`);
      for (const sequence of sequences) {
        await client.query(
          `select setval($1, coalesce((select max(${quoted(sequence.column_name)}) from public.${quoted(sequence.table_name)}), 0) + 1, false)`,
          [sequence.sequence],
        );
      }
      await client.query('commit');
    } catch (error) {
      // The restore's own failure is the one to report; a rollback that fails means a broken
      // connection, which goes with the database closed below.
      await loader.query('rollback').catch(() => {});
      throw error;
    } finally {
      loader.release();
    }
    // What this build has beyond the backup runs now, on the restored rows.
    const upgraded = await migrate(database.pool);
    return { manifest, upgraded };
  } finally {
    await database.close();
  }
};
