import type { TBreakerState } from '@sendwell/contracts';
import { sql } from 'kysely';
import { dateBounds } from '../../platform/date-filter';
import type { Executor } from '../../platform/db';
import type { TDeliveryEventType } from '../../platform/db-schema';
/**
 * What the screens and the breaker read of sends and their recipients: History and its
 * details, Scheduled Emails, the dashboard's events, the pre-send check's recent figures, the
 * breaker's figures, the recipient an intake or a public page names. Reads only; the reports
 * module reads through the delivery service.
 */

/** A send's tracked links and how many of its recipients clicked each. */
export const findLinkClicks = async (db: Executor, sendId: number) =>
  (
    await sql<{ id: number; url: string; clicked: number }>`
      select l.id, l.url, count(distinct e.recipient_id)::int as clicked
        from send_links l left join delivery_events e on e.link_id = l.id and e.send_id = ${sendId} and e.type = 'clicked'
       where l.send_id = ${sendId}
       group by l.id, l.url order by l.id`.execute(db)
  ).rows.map((row) => ({ ...row, id: Number(row.id) }));

/** What became of each recipient of a send, in the order they were given. */
export const findRecipientOutcomes = (db: Executor, userId: number, sendId: number) =>
  db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select([
      'send_recipients.id',
      'send_recipients.email',
      'send_recipients.token',
      'send_recipients.status',
      'send_recipients.error',
      'send_recipients.sent_at',
      'send_recipients.opened_at',
      'send_recipients.clicked_at',
      'sends.id as send_id',
      'sends.from_address',
    ])
    .where('sends.user_id', '=', userId)
    .where('send_recipients.send_id', '=', sendId)
    .orderBy('send_recipients.id')
    .execute();

/** A recipient an outside event names, with whose send, account and user it is. */
export type TEventRecipient = {
  id: number;
  send_id: number;
  email: string;
  user_id: number;
  account_id: number | null;
};

/**
 * The recipient rows these references may name, by position (`recipient-refs.ts`): a row
 * id (new messages) or a token (messages sent before references), each found by its
 * unique index; the caller checks each reference's MAC against the row's token. With
 * `accountIds`, only a send of that account counts for each reference (a reference is not
 * an authority across accounts: a webhook names its account).
 */
export const findRecipientsByIdsOrTokens = async (
  db: Executor,
  given: { id: number | null; token: string | null; accountId: number | null }[],
): Promise<(TEventRecipient & { position: number; token: string })[]> => {
  if (given.length === 0) return [];
  const found = await sql<TEventRecipient & { position: number; token: string }>`
    with given as (
      select * from unnest(${given.map((item) => item.id)}::bigint[], ${given.map((item) => item.token)}::text[],
                           ${given.map((item) => item.accountId)}::bigint[])
             with ordinality as given (id, token, account_id, position))
    select given.position, r.id, r.send_id, r.email, r.user_id, s.account_id, r.token
      from given join send_recipients r on r.id = given.id
      join sends s on s.id = r.send_id and (given.account_id is null or s.account_id = given.account_id)
    union all
    select given.position, r.id, r.send_id, r.email, r.user_id, s.account_id, r.token
      from given join send_recipients r on r.token = given.token
      join sends s on s.id = r.send_id and (given.account_id is null or s.account_id = given.account_id)`.execute(db);
  return found.rows.map((row) => ({
    ...row,
    id: Number(row.id),
    send_id: Number(row.send_id),
    user_id: Number(row.user_id),
    account_id: row.account_id === null ? null : Number(row.account_id),
    position: Number(row.position),
  }));
};

/** The recipients of one send with these addresses (any case): a report that names several. */
export const findSendRecipientsByEmails = async (
  db: Executor,
  sendId: number,
  emails: string[],
): Promise<TEventRecipient[]> =>
  emails.length === 0
    ? []
    : (
        await sql<TEventRecipient>`
          select r.id, r.send_id, r.email, r.user_id, s.account_id
            from send_recipients r join sends s on s.id = r.send_id
           where r.send_id = ${sendId} and lower(r.email) = any(${emails.map((email) => email.toLowerCase())}::text[])`.execute(
          db,
        )
      ).rows.map((row) => ({
        ...row,
        id: Number(row.id),
        send_id: Number(row.send_id),
        user_id: Number(row.user_id),
        account_id: row.account_id === null ? null : Number(row.account_id),
      }));

/** A recipient an unsubscribe link names (by row id or, for older messages, token), with its send's sender for the page. */
export const findRecipientForPage = (db: Executor, by: { id: number } | { token: string }) =>
  db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select([
      'send_recipients.id',
      'send_recipients.token',
      'send_recipients.email',
      'send_recipients.unsubscribed_at',
      'send_recipients.user_id',
      'sends.id as send_id',
      'sends.account_id',
      'sends.from_name',
      'sends.from_address',
    ])
    .where((eb) => ('id' in by ? eb('send_recipients.id', '=', by.id) : eb('send_recipients.token', '=', by.token)))
    .executeTakeFirst();

/** A stored link target of a send (a click may only ever go there, R16). */
export const findSendLinks = (db: Executor, linkIds: number[]) =>
  linkIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('send_links').select(['id', 'send_id', 'url']).where('id', 'in', linkIds).execute();

/** A user's sends, for the history and scheduled tables. */
export const selectUserSends = (db: Executor, userId: number) =>
  db
    .selectFrom('sends')
    .select([
      'sends.id',
      'sends.account_id',
      'sends.type',
      'sends.status',
      'sends.note',
      'sends.from_name',
      'sends.from_address',
      'sends.subject',
      'sends.list_names',
      'sends.list_ids',
      'sends.cc',
      'sends.bcc',
      'sends.reply_to',
      'sends.html',
      'sends.document',
      'sends.track_opens',
      'sends.track_clicks',
      'sends.recipients_count',
      'sends.sent_count',
      'sends.failed_count',
      'sends.unknown_count',
      'sends.delivered_count',
      'sends.opened_count',
      'sends.clicked_count',
      'sends.complained_count',
      'sends.unsubscribed_count',
      'sends.deliver_at',
      'sends.started_at',
      'sends.finished_at',
      'sends.created_at',
      'sends.split_group',
      'sends.split_part',
    ])
    .where('sends.user_id', '=', userId)
    // The history lists what a user sent from the Send Email page; drip steps and spam
    // tests have screens of their own.
    .where('sends.source', '=', 'lists');

export type TSendRow = Awaited<ReturnType<ReturnType<typeof selectUserSends>['executeTakeFirstOrThrow']>>;

export const findUserSend = (db: Executor, userId: number, id: number) =>
  selectUserSends(db, userId).where('sends.id', '=', id).executeTakeFirst();

/** The delivery events of one send, as the history detail table shows them. */
export const selectSendEvents = (db: Executor, sendId: number) =>
  db
    .selectFrom('delivery_events')
    .select([
      'id',
      'email as recipient',
      sql<string>`case when type = 'accepted' then 'sent' else type end`.as('event_type'),
      'detail',
      'occurred_at as created_at',
      'is_first',
    ])
    .where('send_id', '=', sendId);

/**
 * A user's delivery events of a kind and within the spec's date filters (`first_date`,
 * `last_date`, read in `timeZone`), newest first by the caller's order (the dashboard's table
 * and export): the events of the user's messages, as the dashboard's counters count them
 * (R33): none of a spam test (not a send), none a provider reports about an address Sendwell
 * sent nothing to.
 */
export const selectUserEvents = (
  db: Executor,
  userId: number,
  filters: { type?: TDeliveryEventType | undefined; first_date?: string | undefined; last_date?: string | undefined },
  timeZone: string,
) => {
  let rows = db
    .selectFrom('delivery_events')
    .leftJoin('sends', 'sends.id', 'delivery_events.send_id')
    .select([
      'delivery_events.id',
      'delivery_events.email as recipient',
      'delivery_events.type as event_type',
      'delivery_events.severity',
      'delivery_events.occurred_at as created_at',
      'delivery_events.detail',
      'delivery_events.is_first',
    ])
    .where('delivery_events.user_id', '=', userId)
    .where('delivery_events.recipient_id', 'is not', null)
    .where((eb) => eb.or([eb('sends.source', 'is', null), eb('sends.source', '<>', 'spam-test')]));
  if (filters.type) rows = rows.where('delivery_events.type', '=', filters.type);
  for (const bound of dateBounds('delivery_events.occurred_at', filters, timeZone)) rows = rows.where(bound);
  return rows;
};

/**
 * Any of the user's sends but a spam test (one of Send Email's, a transactional one, a drip
 * step), with what its figures need: its counters, and its deferred attempts (events).
 */
export const findSendForFigures = async (db: Executor, userId: number, sendId: number) =>
  db
    .selectFrom('sends')
    .select([
      'id',
      'status',
      'subject',
      'created_at',
      'finished_at',
      'recipients_count',
      'sent_count',
      'failed_count',
      'unknown_count',
      'delivered_count',
      'opened_count',
      'clicked_count',
      'complained_count',
      'unsubscribed_count',
      sql<number>`(select count(*)::int from delivery_events e where e.send_id = sends.id and e.type = 'deferred')`.as(
        'deferred',
      ),
    ])
    .where('user_id', '=', userId)
    .where('id', '=', sendId)
    .where('source', '<>', 'spam-test')
    .executeTakeFirst();

/**
 * How a send's failed recipients split into hard and soft bounces (its failed events'
 * severities; one failed event per recipient). History's counts and details read it.
 */
export const findBounceSplit = async (db: Executor, sendId: number) => {
  const row = (
    await sql<{ hard: number; soft: number }>`
      select count(*) filter (where severity = 'permanent')::int as hard,
             count(*) filter (where severity is distinct from 'permanent')::int as soft
        from delivery_events where send_id = ${sendId} and type = 'failed'`.execute(db)
  ).rows[0];
  return { hard: row?.hard ?? 0, soft: row?.soft ?? 0 };
};

/**
 * The figures the breaker judges sends by (their account's, their own), for those still
 * sending that it has not paused: from the send's counters, the counters lagging the claims
 * in progress (a share from them is at most too high, so the breaker counts exactly before
 * it trips: `countHandedOver`); for a send resumed after a pause, the messages since the
 * resume alone (`breakerFiguresSince`).
 */
export const findBreakerFigures = async (db: Executor, sendIds: number[]) => {
  if (sendIds.length === 0) return [];
  const rows = (
    await sql<{
      id: number;
      user_id: number;
      account_id: number;
      attempts: number;
      hard_bounces: number;
      complaints: number;
      judged_from: Date | null;
    }>`
      select s.id, s.user_id, s.account_id, s.breaker_judged_from as judged_from,
             (s.sent_count + s.unknown_count + coalesce(f.refused, 0))::int as attempts,
             coalesce(f.hard, 0)::int as hard_bounces, s.complained_count as complaints
        from sends s
        left join lateral (
          select count(*) filter (where e.severity = 'permanent') as hard,
                 count(*) filter (where r.sent_at is null) as refused
            from delivery_events e join send_recipients r on r.id = e.recipient_id
           where e.send_id = s.id and e.type = 'failed' and s.breaker_judged_from is null) f on true
       where s.id = any(${sendIds}::bigint[]) and s.source = 'lists' and s.status = 'sending'
         and s.breaker_tripped_at is null and s.account_id is not null
       order by s.id`.execute(db)
  ).rows;
  return Promise.all(
    rows.map(async (row) => ({
      ...row,
      id: Number(row.id),
      user_id: Number(row.user_id),
      account_id: Number(row.account_id),
      ...(row.judged_from ? await breakerFiguresSince(db, Number(row.id), row.judged_from) : {}),
    })),
  );
};

/**
 * A send's breaker figures over the messages since `since` (its resume), from their events:
 * the recipients handed over since (accepted, refused, unknown or put off), those among them
 * that bounced hard, and those that complained, each once.
 */
export const breakerFiguresSince = async (db: Executor, sendId: number, since: Date) => {
  const row = (
    await sql<{ attempts: number; hard_bounces: number; complaints: number }>`
      select count(distinct e.recipient_id) filter (where e.type in ('accepted', 'unknown', 'deferred', 'failed'))::int
               as attempts,
             count(distinct e.recipient_id) filter (where e.type = 'failed' and e.severity = 'permanent')::int
               as hard_bounces,
             count(distinct e.recipient_id) filter (where e.type = 'complained')::int as complaints
        from delivery_events e
       where e.send_id = ${sendId} and e.occurred_at >= ${since}`.execute(db)
  ).rows[0]!;
  return row;
};

/** The messages of a send handed over so far, counted from its recipients (the breaker's exact figure). */
export const countHandedOver = async (db: Executor, sendId: number) =>
  (
    await sql<{ handed: number }>`
      select count(*)::int as handed from send_recipients
       where send_id = ${sendId}
         and (status in ('sent', 'failed', 'unknown', 'deferred') or started_at is not null)`.execute(db)
  ).rows[0]?.handed ?? 0;

/**
 * How recent sends to any of these lists went (the pre-send check): their messages handed
 * over, hard bounces and complaints, over the last `days` days. Sends of the `lists` source
 * naming one of the lists; each send's failure events are few.
 */
export const recentListFigures = async (db: Executor, userId: number, listIds: number[], days: number) =>
  (
    await sql<{ sends: number; attempts: number; hard_bounces: number; complaints: number }>`
      with recent as (
        select id, sent_count, unknown_count, complained_count from sends
         where user_id = ${userId} and source = 'lists' and list_ids && ${listIds}::bigint[]
           and created_at > now() - make_interval(days => ${days}) and status in ('finished', 'sending', 'paused', 'cancelled'))
      select count(*)::int as sends,
             -- Recipients as the figures count them (accepted, refused at handover, unknown): a
             -- refusal is a message too, and the hard bounces below count it.
             (coalesce(sum(sent_count + unknown_count), 0)
               + (select count(*) from delivery_events e join send_recipients r on r.id = e.recipient_id
                   where e.send_id in (select id from recent) and e.type = 'failed' and r.sent_at is null))::int as attempts,
             coalesce(sum(complained_count), 0)::int as complaints,
             (select count(distinct e.recipient_id)::int from delivery_events e
               where e.send_id in (select id from recent) and e.type = 'failed' and e.severity = 'permanent') as hard_bounces
        from recent`.execute(db)
  ).rows[0]!;

/** Of these sends, the ones with a hard bounce (a permanent failure event): a drip campaign's breaker counts them. */
export const findHardBouncedSends = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : (
        await sql<{ send_id: number }>`
          select distinct send_id from delivery_events
           where send_id = any(${sendIds}::bigint[]) and type = 'failed' and severity = 'permanent'`.execute(db)
      ).rows.map((row) => Number(row.send_id));

/**
 * What became of the recipients of many sourced sends at once (a drip campaign's messages):
 * by send, its recipients' state, when sent, delivered, opened, clicked and unsubscribed,
 * and the provider's or server's words when it failed.
 */
export const sourcedOutcomesOfSends = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : db
        .selectFrom('send_recipients')
        .select([
          'send_id',
          'email',
          'status',
          'error',
          'sent_at',
          'delivered_at',
          'opened_at',
          'clicked_at',
          'unsubscribed_at',
          'complained_at',
        ])
        .where('send_id', 'in', sendIds)
        .execute();

/** The first click on each link of these sends: a drip step's click follow-up waits for one. */
export const firstClicksOf = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : (
        await sql<{ send_id: number; url: string; clicked_at: Date }>`
          select e.send_id, l.url, min(e.occurred_at) as clicked_at
            from delivery_events e join send_links l on l.id = e.link_id
           where e.send_id = any(${sendIds}::bigint[]) and e.type = 'clicked'
           group by e.send_id, l.url`.execute(db)
      ).rows.map((row) => ({ ...row, send_id: Number(row.send_id) }));

/** The scheduled sends of a user that use a list (asked before the list is deleted). */
export const findScheduledSendsOfList = (db: Executor, userId: number, listId: number) =>
  db
    .selectFrom('sends')
    .select(['id', 'subject'])
    .where('user_id', '=', userId)
    .where('status', '=', 'scheduled')
    .where((eb) => eb(eb.val(listId), '=', eb.fn.any('list_ids')))
    .execute();

/** A user's send, whole (its progress card); undefined when not theirs. */
export const findUserSendRow = (db: Executor, userId: number, sendId: number) =>
  db.selectFrom('sends').selectAll().where('user_id', '=', userId).where('id', '=', sendId).executeTakeFirst();

/** How many of a send's recipients are still to be sent (pending, deferred, or in a claim). */
export const countWaiting = async (db: Executor, sendId: number) =>
  (
    await sql<{ waiting: number }>`
      select count(*)::int as waiting from send_recipients
       where send_id = ${sendId} and status in ('pending', 'deferred', 'sending')`.execute(db)
  ).rows[0]!.waiting;

/** What the progress card shows of a send, with its owner to tell (`SendProgressEvent`). */
const findProgressOf = (db: Executor, sendId: number) =>
  db
    .selectFrom('sends')
    .select([
      'id',
      'user_id',
      'status',
      'recipients_count',
      'sent_count',
      'failed_count',
      'unknown_count',
      'note',
      'breaker_reason',
      'breaker_judged_from',
    ])
    .where('id', '=', sendId)
    .executeTakeFirst();

/**
 * The breaker's live figures for a send it paused or judges again since a resume (the card
 * shows them beside its reason, issue 45 §3): the messages judged (all, or those since the
 * resume), their hard bounces and complaints, counted from their events now. Null for a
 * send the breaker never touched.
 */
export const breakerStateOf = async (
  db: Executor,
  send: { id: number; breaker_reason: string | null; breaker_judged_from: Date | null },
): Promise<TBreakerState | null> => {
  if (send.breaker_reason === null && send.breaker_judged_from === null) return null;
  const figures = await breakerFiguresSince(db, send.id, send.breaker_judged_from ?? new Date(0));
  return { judged_from: send.breaker_judged_from?.toISOString() ?? null, ...figures };
};

/** A send's progress event (`SendProgressEvent`) with whom it is for; undefined for no such send. */
export const progressEventOf = async (db: Executor, sendId: number) => {
  const send = await findProgressOf(db, sendId);
  if (!send) return undefined;
  const { user_id: userId, breaker_judged_from: _judgedFrom, ...payload } = send;
  return { userId, payload: { ...payload, breaker: await breakerStateOf(db, send) } };
};

/**
 * Whether every recipient of these sends has had their message handed over at least once
 * (accepted, refused, put off or unknown: none pending or in a claim), and when the last of
 * them was: an A/B test's wait starts there (issue 45 §3), not when the send was made, so a
 * capped account's slow test parts are judged after the wait like a fast one's.
 */
export const findHandoverOf = async (db: Executor, sendIds: number[]) => {
  const row = (
    await sql<{ waiting: boolean; last: Date | null }>`
      select exists (select 1 from send_recipients r
                      where r.send_id = any(${sendIds}::bigint[]) and r.status in ('pending', 'sending')) as waiting,
             (select max(e.occurred_at) from delivery_events e
               where e.send_id = any(${sendIds}::bigint[])
                 and e.type in ('accepted', 'failed', 'deferred', 'unknown')) as last`.execute(db)
  ).rows[0]!;
  return { isHandedOver: !row.waiting, lastAt: row.last };
};

/**
 * The figures of breaker groups (a drip campaign's messages: issue 44 §4) that have not
 * tripped, as the breaker judges a send's: the messages handed over (accepted or refused), the
 * recipients among them that bounced hard and those that complained, each once; of the sends
 * made since the group was started again, when it was.
 */
export const findGroupFigures = async (db: Executor, keys: string[]) =>
  keys.length === 0
    ? []
    : (
        await sql<{
          key: string;
          user_id: number;
          account_id: number;
          judged_from: Date | null;
          attempts: number;
          hard_bounces: number;
          complaints: number;
        }>`
          select g.key, g.user_id, g.account_id, g.judged_from,
                 count(r.id) filter (where r.sent_at is not null or r.status = 'failed')::int as attempts,
                 count(r.id) filter (where r.status = 'failed' and exists (
                   select 1 from delivery_events e
                    where e.recipient_id = r.id and e.type = 'failed' and e.severity = 'permanent'))::int as hard_bounces,
                 count(r.id) filter (where r.complained_at is not null)::int as complaints
            from breaker_groups g
            join sends s on s.breaker_group = g.key and s.created_at >= coalesce(g.judged_from, '-infinity')
            join send_recipients r on r.send_id = s.id
           where g.key = any(${keys}::text[]) and g.tripped_at is null and g.account_id is not null
           group by g.key
           order by g.key`.execute(db)
      ).rows.map((row) => ({ ...row, user_id: Number(row.user_id), account_id: Number(row.account_id) }));

/** The breaker groups these sends belong to. */
export const findGroupsOfSends = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : (
        await db
          .selectFrom('sends')
          .select('breaker_group')
          .distinct()
          .where('id', 'in', sendIds)
          .where('breaker_group', 'is not', null)
          .execute()
      ).map((row) => row.breaker_group!);
