import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

/**
 * Whether the DNS resolver can be believed (R48). A resolver that answers "no such domain"
 * for everything (a captive DNS, a broken forwarder, a firewall) makes every address look
 * invalid and every domain look as if it published no SPF or DMARC. So before such an answer
 * counts, email verification and the pre-send check ask for a few names that must exist
 * (DNS_CANARY_NAMES: gmail.com, outlook.com, yahoo.com): when one of them is not found,
 * the resolver is broken, verdicts that rest on it are "unknown" (and refunded), and the
 * operator's System page says so. Each asker keeps its own row, since each may use its own
 * servers (VERIFY_DNS_SERVERS, SPAM_TEST_DNS_SERVERS).
 */

export type TResolverSource = 'verification' | 'pre-send';

export type TResolverHealth =
  | { isBroken: false }
  | {
      isBroken: true;
      /** The names that must exist and were not found, with what the resolver said. */
      failures: { name: string; code: string }[];
      /** One line for users and the operator. */
      detail: string;
    };

/**
 * Asks for each name's MX records (`lookupMx` answers as `dns.promises.resolveMx` does, or
 * throws with its `code`). Every name must answer with at least one record: a name that
 * must exist and is "not found", "has no records" or times out means the resolver's other
 * answers cannot be taken at their word either.
 */
export const checkResolver = async (
  lookupMx: (name: string) => Promise<unknown[]>,
  names: string[],
): Promise<TResolverHealth> => {
  const failures = (
    await Promise.all(
      names.map(async (name) => {
        try {
          const records = await lookupMx(name);
          return records.length > 0 ? null : { name, code: 'ENODATA' };
        } catch (error) {
          return { name, code: (error as { code?: string }).code ?? 'DNS error' };
        }
      }),
    )
  ).filter((failure) => failure !== null);
  if (failures.length === 0) return { isBroken: false };
  return {
    isBroken: true,
    failures,
    detail: `The DNS resolver did not find ${failures
      .map((failure) => `${failure.name} (${failure.code})`)
      .join(', ')}, names that must exist.`,
  };
};

/**
 * Writes what an asker found, for the System page: the time it broke (kept while it stays
 * broken) or the last time it answered. A healthy answer already recorded within the minute
 * writes nothing: the pre-send check asks on every confirmation.
 */
export const recordResolverHealth = async (
  db: Executor,
  source: TResolverSource,
  servers: string[],
  health: TResolverHealth,
) => {
  const isBroken = health.isBroken;
  const detail = health.isBroken ? health.detail : null;
  await sql`
    insert into resolver_status as s (source, servers, broken_since, last_ok_at, detail, updated_at)
    values (${source}, ${servers.join(', ')}, ${isBroken ? new Date() : null}, ${isBroken ? null : new Date()}, ${detail}, now())
    on conflict (source) do update set
      servers = excluded.servers,
      broken_since = case when ${isBroken} then coalesce(s.broken_since, excluded.broken_since) else null end,
      last_ok_at = coalesce(excluded.last_ok_at, s.last_ok_at),
      detail = case when ${isBroken} then excluded.detail else s.detail end,
      updated_at = now()
    where ${isBroken} or s.broken_since is not null or s.updated_at < now() - interval '1 minute'`.execute(db);
};

/** For the operator's System page: each asker's resolver, broken or not, as last seen. */
export const resolverStatus = async (db: Executor) => {
  const rows = await db.selectFrom('resolver_status').selectAll().orderBy('source').execute();
  return rows.map((row) => ({
    source: row.source,
    servers: row.servers,
    brokenSince: row.broken_since?.toISOString() ?? null,
    lastOkAt: row.last_ok_at?.toISOString() ?? null,
    detail: row.detail,
  }));
};
