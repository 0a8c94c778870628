import os from 'node:os';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { memorySettingsFor } from './embedded-postgres';

const GiB = 2 ** 30;

describe('embedded PostgreSQL memory settings', () => {
  it('sizes memory from the machine, conservatively, within bounds', () => {
    expect(memorySettingsFor(24 * GiB)).toEqual({
      shared_buffers: '1536MB',
      effective_cache_size: '6144MB',
      work_mem: '24MB',
      maintenance_work_mem: '384MB',
    });
    // A small machine keeps PostgreSQL's own floor; a large one is capped (the machine is shared).
    expect(memorySettingsFor(1 * GiB)).toEqual({
      shared_buffers: '128MB',
      effective_cache_size: '512MB',
      work_mem: '4MB',
      maintenance_work_mem: '64MB',
    });
    expect(memorySettingsFor(512 * GiB)).toEqual({
      shared_buffers: '4096MB',
      effective_cache_size: '32768MB',
      work_mem: '32MB',
      maintenance_work_mem: '1024MB',
    });
  });

  it('starts the embedded server with them', async () => {
    // The run's PostgreSQL is an embedded one started like Sendwell's own (test/cluster.ts).
    const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; bytes: string }>(
        `select name, (setting::bigint * case unit when '8kB' then 8192 when 'kB' then 1024 else 1 end)::text as bytes
           from pg_settings where name = any($1::text[])`,
        [Object.keys(memorySettingsFor(os.totalmem()))],
      );
      const expected = Object.entries(memorySettingsFor(os.totalmem())).map(([name, value]) => [
        name,
        String(Number.parseInt(value, 10) * 2 ** 20),
      ]);
      expect(Object.fromEntries(rows.map((row) => [row.name, row.bytes]))).toEqual(Object.fromEntries(expected));
    } finally {
      await client.end();
    }
  });
});
