import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { subscribedMembersOf } from '../lists/lists.service';
import { notSuppressed } from '../suppression/suppression.service';
/**
 * A send's audience, taken once at its snapshot (R2): its lists' subscribed members less the
 * suppressed, its copies, a split send's parts, a re-send's engaged recipients, or the
 * recipients a source gives (a drip step, a spam test). Each statement is idempotent through
 * the unique key on (send, address): a retried snapshot takes the same audience.
 */

/**
 * A send's audience from its lists (the `lists` source): every subscribed member of the
 * chosen lists, one row per address in any case, minus suppressed addresses; then its CC
 * and BCC addresses, one copy each as recipients of their own (a bulk send never shows
 * one recipient's address to another). The unique key on (send, address) makes it
 * idempotent (R2).
 */
export const insertListAudience = async (
  trx: Executor,
  send: { id: number; user_id: number; list_ids: number[]; cc: string; bcc: string },
) => {
  await sql`
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select distinct on (lower(m.email)) ${send.id}, m.user_id, m.email, m.fullname, m.fields,
           replace(gen_random_uuid()::text, '-', '')
      from ${subscribedMembersOf(send.user_id, send.list_ids)} m
     where ${notSuppressed(send.user_id, sql`m.email`)}
     order by lower(m.email), m.list_id
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
  await insertCopies(trx, send.id, send.user_id, send);
};

/** The send's CC and BCC addresses as recipients of their own, each once, less the suppressed. */
const insertCopies = async (trx: Executor, sendId: number, userId: number, lines: { cc: string; bcc: string }) => {
  const copies = [
    ...new Set(
      `${lines.cc},${lines.bcc}`
        .split(/[,;]/)
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
  if (copies.length === 0) return;
  await sql`
    insert into send_recipients (send_id, user_id, email, token)
    select ${sendId}, ${userId}, c.email, replace(gen_random_uuid()::text, '-', '')
      from unnest(${copies}::text[]) as c(email)
     where ${notSuppressed(userId, sql`c.email`)}
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
};

/**
 * The snapshot of a split send (an A/B subject test, issue 31 §4), taken by its lead part:
 * the lists' audience as `insertListAudience` takes it, in an order no list gives (a hash of
 * the lead's id and the address, so a retried snapshot deals the same way), dealt out in one
 * statement: the first `perPart × parts` in turn to the test parts (`abSplitSizes` in
 * contracts is the same rule), everyone else to the rest (part 0), with the CC and BCC copies.
 * One row per address across all parts: nobody gets the email twice.
 */
export const insertSplitAudience = async (
  trx: Executor,
  lead: {
    id: number;
    user_id: number;
    list_ids: number[];
    cc: string;
    bcc: string;
    split_test_percent: number | null;
  },
) => {
  await sql`
    with audience as (
      select distinct on (lower(m.email)) m.user_id, m.email, m.fullname, m.fields
        from ${subscribedMembersOf(lead.user_id, lead.list_ids)} m
       where ${notSuppressed(lead.user_id, sql`m.email`)}
       order by lower(m.email), m.list_id),
    parts as (select id, split_part from sends where split_group = ${lead.id}),
    sizes as (
      select (select count(*) from parts where split_part > 0) as parts, (select count(*) from audience) as total),
    per_part as (
      -- numeric rounds halves up, as Math.round does in abSplitSizes (float8 would round them to even).
      select parts, least(total / greatest(parts, 1),
                          greatest(1, round(total::numeric * ${lead.split_test_percent ?? 0}::numeric / 100
                                            / greatest(parts, 1)))) as size
        from sizes),
    dealt as (
      select a.*, row_number() over (order by md5(${lead.id}::text || lower(a.email)), lower(a.email)) as position
        from audience a)
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select p.id, d.user_id, d.email, d.fullname, d.fields, replace(gen_random_uuid()::text, '-', '')
      from dealt d cross join per_part s
      join parts p on p.split_part = case when d.position <= s.size * s.parts then (d.position - 1) % s.parts + 1 else 0 end
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
  const rest = await trx
    .selectFrom('sends')
    .select('id')
    .where('split_group', '=', lead.id)
    .where('split_part', '=', 0)
    .executeTakeFirst();
  if (rest) await insertCopies(trx, rest.id, lead.user_id, lead);
};

/**
 * Re-send by engagement (issue 31 §3): a previous send's recipients who did (or did not)
 * engage, as one query fragment for the count shown before confirming and for the snapshot,
 * so both read the same rule: accepted and not failed; not opened / opened / clicked (a given
 * link); never unsubscribed or complained through that send; not suppressed now; and still
 * subscribed to one of its lists (an unsubscribe since, from any message, is respected).
 */
const engagedRecipientsOf = (
  previous: { id: number; user_id: number; list_ids: number[] },
  audience: 'not-opened' | 'opened' | 'clicked',
  linkId: number | null,
) => {
  const filter =
    audience === 'not-opened'
      ? sql`r.opened_at is null and r.clicked_at is null`
      : audience === 'opened'
        ? sql`r.opened_at is not null`
        : linkId === null
          ? sql`r.clicked_at is not null`
          : sql`exists (select 1 from delivery_events e
                         where e.send_id = ${previous.id} and e.recipient_id = r.id and e.type = 'clicked'
                           and e.link_id = ${linkId})`;
  return sql`(select r.user_id, r.email, r.name, r.fields from send_recipients r
     where r.send_id = ${previous.id} and r.sent_at is not null and r.status <> 'failed'
       and r.unsubscribed_at is null and r.complained_at is null and ${filter}
       and ${notSuppressed(previous.user_id, sql`r.email`)}
       and lower(r.email) in (select lower(m.email) from ${subscribedMembersOf(previous.user_id, previous.list_ids)} m))`;
};

export const countEngagedRecipients = async (
  db: Executor,
  previous: { id: number; user_id: number; list_ids: number[] },
  audience: 'not-opened' | 'opened' | 'clicked',
  linkId: number | null,
) =>
  (
    await sql<{
      count: number;
    }>`select count(*)::int as count from ${engagedRecipientsOf(previous, audience, linkId)} a`.execute(db)
  ).rows[0]?.count ?? 0;

/** The snapshot of a re-send by engagement: the previous send's engaged recipients, once each. */
export const insertEngagedAudience = async (
  trx: Executor,
  send: {
    id: number;
    user_id: number;
    resend_of: number | null;
    resend_audience: string | null;
    resend_link_id: number | null;
  },
) => {
  if (send.resend_of === null) return;
  const previous = await trx
    .selectFrom('sends')
    .select(['id', 'user_id', 'list_ids'])
    .where('id', '=', send.resend_of)
    .where('user_id', '=', send.user_id)
    .executeTakeFirst();
  if (!previous) return;
  await sql`
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select ${send.id}, a.user_id, a.email, a.name, a.fields, replace(gen_random_uuid()::text, '-', '')
      from ${engagedRecipientsOf(
        { id: Number(previous.id), user_id: previous.user_id, list_ids: previous.list_ids.map(Number) },
        send.resend_audience as 'not-opened' | 'opened' | 'clicked',
        send.resend_link_id === null ? null : Number(send.resend_link_id),
      )} a
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
};

/**
 * The recipients a source gives with its send (a drip step's, a spam test's address), less
 * the suppressed, once per address (the first given wins). Answers how many were kept.
 */
export const insertGivenRecipients = async (
  trx: Executor,
  send: { id: number; user_id: number },
  recipients: { email: string; name: string; fields: Record<string, string>; headers: Record<string, string> | null }[],
) => {
  if (recipients.length === 0) return 0;
  const inserted = await sql<{ id: number }>`
    insert into send_recipients (send_id, user_id, email, name, fields, headers, token)
    select ${send.id}, ${send.user_id}, r.email, r.name, r.fields, r.headers, replace(gen_random_uuid()::text, '-', '')
      from (select distinct on (lower(g.item->>'email')) g.position, g.item->>'email' as email,
                   g.item->>'name' as name, g.item->'fields' as fields,
                   nullif(g.item->'headers', 'null'::jsonb) as headers
              from jsonb_array_elements(${JSON.stringify(recipients)}::jsonb) with ordinality as g(item, position)
             order by lower(g.item->>'email'), g.position) r
     where ${notSuppressed(send.user_id, sql`r.email`)}
     order by r.position
    on conflict (send_id, lower(email)) do nothing
    returning id`.execute(trx);
  return inserted.rows.length;
};
