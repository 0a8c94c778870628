/**
 * The physical limit of B7 and B8 on this design (issue 49): bare Fastify with `pg` and
 * nothing else, running the statements Sendwell runs for the same requests, in a process of
 * its own. What separates Sendwell from it is Sendwell's own work (routing and schemas,
 * sessions and security headers, logging, the services), not PostgreSQL.
 *
 * - `GET /api/notifications`: the session cookie's SHA-256 looked up in a 30-second
 *   in-memory cache, else in `sessions` (as `findSession` does), then the page of 20 with
 *   its unread and total counters in one statement (as `listNotifications` does).
 * - `POST /hook`: the Mailgun signature checked (HMAC-SHA256 of timestamp and token, compared
 *   in constant time), the event stored by `storeWebhookEvents`' statement, group-committed
 *   with Sendwell's own helper and settings, each answered after the commit that holds it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import {
  storeWebhookEvents,
  type TWebhookRecord,
} from '../packages/server/src/modules/delivery-events/delivery-events.repository';
import { groupCommit } from '../packages/server/src/platform/group-commit';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const signingKey = process.env.WEBHOOK_KEY ?? '';
const accountId = Number(process.env.ACCOUNT_ID ?? 0);

const sessions = new Map<string, { userId: number; validUntil: number }>();
const SESSION_CACHE_MS = 30_000;

const userOf = async (cookieHeader: string | undefined) => {
  const token = /(?:^|;\s*)sendwell_session=([^;]+)/.exec(cookieHeader ?? '')?.[1];
  if (!token) return null;
  const idHash = createHash('sha256').update(decodeURIComponent(token)).digest();
  const key = idHash.toString('hex');
  const cached = sessions.get(key);
  if (cached && cached.validUntil > Date.now()) return cached.userId;
  const { rows } = await pool.query<{ user_id: number; expires_at: Date }>(
    'select "user_id", "last_seen_at", "expires_at" from "sessions" where "id_hash" = $1 and "expires_at" > $2',
    [idHash, new Date()],
  );
  const row = rows[0];
  if (!row) return null;
  sessions.set(key, {
    userId: Number(row.user_id),
    validUntil: Math.min(Date.now() + SESSION_CACHE_MS, row.expires_at.getTime()),
  });
  return Number(row.user_id);
};

const PAGE = `select "id", "title", "body", "link", "read_at", "created_at",
       coalesce((select "unread" from notification_counters where user_id = $1), 0) as "__unread",
       coalesce((select "total" from notification_counters where user_id = $2), 0) as "__total"
  from "notifications" where "user_id" = $3
 order by "created_at" desc, "id" desc limit $4 offset $5`;

const app = Fastify();

app.get<{ Querystring: { page?: string; per_page?: string } }>('/api/notifications', async (request, reply) => {
  const userId = await userOf(request.headers.cookie);
  if (userId === null) return reply.code(401).send({ message: 'Unauthenticated.' });
  const page = Number(request.query.page ?? 1);
  const perPage = Number(request.query.per_page ?? 20);
  const { rows } = await pool.query(PAGE, [userId, userId, userId, perPage, (page - 1) * perPage]);
  const total = Number(rows[0]?.__total ?? 0);
  return {
    data: rows.map(({ __unread: _unread, __total: _total, ...row }) => ({
      ...row,
      read_at: row.read_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    })),
    meta: {
      current_page: page,
      last_page: Math.max(1, Math.ceil(total / perPage)),
      from: rows.length > 0 ? (page - 1) * perPage + 1 : null,
      to: rows.length > 0 ? (page - 1) * perPage + rows.length : null,
      total,
      per_page: perPage,
    },
    unread: Number(rows[0]?.__unread ?? 0),
  };
});

// Group commit as Sendwell's intake does it (its helper and its settings: at most 500 events
// a statement, 4 statements in flight, a forming group waits 2 ms for company).
const store = groupCommit(
  async (records: TWebhookRecord[]) => {
    await storeWebhookEvents(pool, records);
    return records.map(() => true);
  },
  { maxItems: 500, maxRunning: 4, lingerMs: 2 },
);

type TPost = {
  signature?: { timestamp?: string; token?: string; signature?: string };
  'event-data'?: { id?: string };
};

app.post<{ Body: TPost }>('/hook', async (request, reply) => {
  const { signature, 'event-data': event } = request.body ?? {};
  if (!signature?.timestamp || !signature.token || !signature.signature || !event?.id) {
    return reply.code(406).send({ message: 'not a Mailgun event' });
  }
  const expected = createHmac('sha256', signingKey).update(`${signature.timestamp}${signature.token}`).digest();
  const given = Buffer.from(signature.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return reply.code(406).send({ message: 'bad signature' });
  }
  await store({ accountId, token: signature.token, eventId: `bare-${event.id}`, payload: JSON.stringify(event) });
  return { status: true, message: 'ok' };
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('bare fastify with pg listening');
// A stop (SIGINT, as the harness sends) exits normally, so a --cpu-prof profile is written.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
