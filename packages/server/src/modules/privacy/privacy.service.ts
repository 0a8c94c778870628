import { safeCell } from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import type { TPlatform } from '../../platform/context';

/**
 * A person's data on request (issue 48 §4, R46): everything the user holds about one
 * address, across every module that keeps addresses (each registers its part,
 * `personalData` in `modules/module.ts`), exported as JSON or CSV, or erased in one
 * transaction. After an erase no table holds the address; the suppression module keeps
 * its hash so it is never mailed again.
 */

/** A row as a document shows it: times in ISO 8601, bytes in base64. */
const plain = (value: unknown): unknown => {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return typeof value === 'bigint' ? value.toString() : value;
};

/** Every row about the address, by table; tables with none are left out. */
export const findPersonData = async (platform: TPlatform, userId: number, email: string) => {
  const tables: Record<string, unknown[]> = {};
  for (const part of platform.hooks.personalData) {
    for (const [table, rows] of Object.entries(await part.find(platform.db, userId, email))) {
      if (rows.length > 0) tables[table] = [...(tables[table] ?? []), ...rows.map(plain)];
    }
  }
  return tables;
};

export const exportPersonData = async (platform: TPlatform, userId: number, email: string, format: 'json' | 'csv') => {
  const tables = await findPersonData(platform, userId, email);
  const exportedAt = new Date().toISOString();
  if (format === 'json') {
    return JSON.stringify(
      {
        email,
        exported_at: exportedAt,
        about:
          'Every record Sendwell holds about this address for this user: list memberships with their consent, ' +
          'messages sent and what happened to them, suppressions, drip campaigns, verifications, by table.',
        tables,
      },
      null,
      2,
    );
  }
  const rows = Object.entries(tables).flatMap(([table, records]) =>
    records.map((record) => {
      const row = record as Record<string, unknown>;
      const when = row.created_at ?? row.occurred_at ?? row.checked_at ?? row.bounced_at ?? '';
      return [table, String(row.id ?? row.member_id ?? row.import_id ?? ''), String(when), JSON.stringify(row)].map(
        safeCell,
      );
    }),
  );
  return `\uFEFF${stringify([['Table', 'Id', 'Time', 'Record'], ...rows])}`;
};

/**
 * Erases every row about the address in one transaction (all of it, or nothing when a part
 * cannot: a message to the address being handed over that moment). Answers the rows by table.
 */
export const erasePersonData = async (platform: TPlatform, userId: number, email: string) =>
  platform.db.transaction().execute(async (trx) => {
    const counts: Record<string, number> = {};
    for (const part of platform.hooks.personalData) {
      for (const [table, count] of Object.entries(await part.erase(platform, trx, userId, email))) {
        counts[table] = (counts[table] ?? 0) + count;
      }
    }
    return counts;
  });
