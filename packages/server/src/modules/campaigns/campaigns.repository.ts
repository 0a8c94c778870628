import type { TCampaignCounts, TCampaignEmail, ZCampaignMembersQuery } from '@sendwell/contracts';
import { type Insertable, type RawBuilder, sql, type Updateable } from 'kysely';
import type { z } from 'zod';
import type { Executor } from '../../platform/db';
import type { CampaignMessagesTable, CampaignStepsTable, CampaignsTable } from '../../platform/db-schema';
import { countRows } from '../../platform/queries';
import { notSuppressed } from '../suppression/suppression.service';

/**
 * The campaigns module's SQL: campaigns, their steps, recipients and messages. Every
 * function takes the executor (`trx ?? db`); the services open the transactions. A read by
 * a user's id is scoped to that user (another user's id finds nothing).
 */

// ---------------------------------------------------------------- campaigns

/** A campaign of the user by id, or a draft by its temporary key; nothing for another user's. */
export const findCampaign = (db: Executor, userId: number, where: { id?: number; key?: string }) => {
  let query = db.selectFrom('campaigns').selectAll().where('user_id', '=', userId);
  if (where.id !== undefined) query = query.where('id', '=', where.id);
  if (where.key !== undefined) query = query.where('temporary_key', '=', where.key).where('is_draft', '=', true);
  return query.executeTakeFirst();
};

export type TCampaignRecord = NonNullable<Awaited<ReturnType<typeof findCampaign>>>;

export const insertCampaign = (db: Executor, row: Insertable<CampaignsTable>) =>
  db.insertInto('campaigns').values(row).returning('id').executeTakeFirstOrThrow();

export const updateCampaign = (db: Executor, id: number, changes: Updateable<CampaignsTable>) =>
  db.updateTable('campaigns').set(changes).where('id', '=', id).execute();

/** Saving a wizard step unlocks the next (spec §4): the furthest step reached only grows. */
export const reachStep = (db: Executor, id: number, step: number) =>
  db
    .updateTable('campaigns')
    .set({ step: sql`greatest(step, ${Math.min(6, step)})`, updated_at: new Date() })
    .where('id', '=', id)
    .execute();

/** The user's saved campaigns (or drafts), with the list's counts, for `paginate`. */
export const campaignRowsQuery = (db: Executor, userId: number, isDraft: boolean) =>
  db
    .selectFrom('campaigns')
    .select([
      'campaigns.id',
      'campaigns.title',
      'campaigns.running',
      'campaigns.is_draft',
      'campaigns.schedule_at',
      'campaigns.created_at',
      'campaigns.account_id',
      'campaigns.step',
      sql<number>`(select count(*)::int from campaign_recipients r where r.campaign_id = campaigns.id)`.as(
        'members_count',
      ),
      sql<number>`(select count(*)::int from campaign_recipients r where r.campaign_id = campaigns.id and r.state = 'active')`.as(
        'active',
      ),
      // Sent is what the provider accepted, a bounce after acceptance included (GLOSSARY.md, R33).
      sql<number>`(select count(*)::int from campaign_messages m where m.campaign_id = campaigns.id and m.sent_at is not null)`.as(
        'sent_count',
      ),
      sql<number>`(select count(*)::int from campaign_messages m where m.campaign_id = campaigns.id and m.opened_at is not null)`.as(
        'opened_count',
      ),
      sql<number>`(select count(*)::int from campaign_messages m where m.campaign_id = campaigns.id and m.status = 'failed')`.as(
        'bounced_count',
      ),
    ])
    .where('campaigns.user_id', '=', userId)
    .where('campaigns.is_draft', '=', isDraft);

/** Deletes the user's campaigns with their steps, recipients and messages (cascading); how many went. */
export const deleteCampaignRows = async (db: Executor, userId: number, ids: number[]) =>
  Number(
    (await db.deleteFrom('campaigns').where('user_id', '=', userId).where('id', 'in', ids).executeTakeFirst())
      .numDeletedRows,
  );

/** Saved campaigns that may send now (running, started, with an account), for the scheduler. */
export const runningCampaigns = (db: Executor, now: Date) =>
  db
    .selectFrom('campaigns')
    .select([
      'id',
      'user_id',
      'account_id',
      'sender_name',
      'from_address',
      'signature',
      'track_opens',
      'track_clicks',
      'mail_per_day',
      'mail_per_delay',
      'daily_plan',
    ])
    .where('running', '=', true)
    .where('is_draft', '=', false)
    .where('account_id', 'is not', null)
    .where((eb) => eb.or([eb('schedule_at', 'is', null), eb('schedule_at', '<=', now)]))
    .execute();

/**
 * One hand-over at a time per sending account: a transaction-scoped advisory lock, taken
 * or not at once (another worker holding it is handing over for the account).
 */
export const tryLockAccount = async (trx: Executor, lockClass: number, accountId: number) =>
  (
    await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(${lockClass}::int, (${accountId}::bigint % 2147483648)::int) as locked`.execute(
      trx,
    )
  ).rows[0]?.locked === true;

// ---------------------------------------------------------------- steps

/** The campaign's sequence: its steps not deleted, in order. */
export const listSteps = (db: Executor, campaignId: number) =>
  db
    .selectFrom('campaign_steps')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('deleted_at', 'is', null)
    .orderBy('position')
    .execute();

export const countSteps = (db: Executor, campaignId: number) =>
  countRows(db.selectFrom('campaign_steps').where('campaign_id', '=', campaignId).where('deleted_at', 'is', null));

export const insertStep = (db: Executor, row: Insertable<CampaignStepsTable>) =>
  db.insertInto('campaign_steps').values(row).returning('id').executeTakeFirstOrThrow();

export const updateStep = (db: Executor, id: number, changes: Updateable<CampaignStepsTable>) =>
  db.updateTable('campaign_steps').set(changes).where('id', '=', id).execute();

/** Takes steps out of the sequence; they stay for the history of the messages they sent. */
export const markStepsDeleted = (db: Executor, ids: number[]) =>
  db.updateTable('campaign_steps').set({ deleted_at: new Date() }).where('id', 'in', ids).execute();

/** The E-Mails page: each step of the sequence with its messages' figures (GLOSSARY.md, R33). */
export const stepsWithCounts = async (db: Executor, campaignId: number) =>
  (
    await sql<TCampaignEmail & { position: number }>`
      select s.id, s.position as "order", s.subject, s.body, s.body_document, s.reply_to, s.global_reply, s.period,
             s.frequency,
             s.follow_up, s.click_follow_up,
             s.position = 1 as first,
             count(m.id) filter (where m.sent_at is not null)::int as sent_count,
             count(m.id) filter (where m.status = 'queued')::int as queued_count,
             count(m.id) filter (where m.delivered_at is not null)::int as delivered_count,
             count(m.id) filter (where m.opened_at is not null)::int as opened_count,
             count(m.id) filter (where m.clicked_at is not null)::int as clicked_count,
             count(m.id) filter (where m.status = 'failed')::int as bounced_count
        from campaign_steps s left join campaign_messages m on m.step_id = s.id and m.kind = 'step'
       where s.campaign_id = ${campaignId} and s.deleted_at is null
       group by s.id order by s.position`.execute(db)
  ).rows;

// ---------------------------------------------------------------- recipients

/** Deletes all of a campaign's recipients; how many went. */
export const deleteAllRecipients = async (db: Executor, campaignId: number) =>
  Number(
    (await db.deleteFrom('campaign_recipients').where('campaign_id', '=', campaignId).executeTakeFirst())
      .numDeletedRows,
  );

/** Deletes some of the user's recipients of a campaign; how many went. */
export const deleteRecipientRows = async (db: Executor, userId: number, campaignId: number, ids: number[]) =>
  Number(
    (
      await db
        .deleteFrom('campaign_recipients')
        .where('campaign_id', '=', campaignId)
        .where('user_id', '=', userId)
        .where('id', 'in', ids)
        .executeTakeFirst()
    ).numDeletedRows,
  );

/** A campaign's recipients, or those in one state. */
export const countRecipients = (db: Executor, campaignId: number, state?: 'active') => {
  const query = db.selectFrom('campaign_recipients').where('campaign_id', '=', campaignId);
  return countRows(state ? query.where('state', '=', state) : query);
};

/**
 * A campaign's recipients Sendwell will not send to: bounced, complained or unsubscribed
 * before (the user's suppressions).
 */
export const countSuppressedRecipients = async (db: Executor, userId: number, campaignId: number) =>
  Number(
    (
      await sql<{ count: number }>`
        select count(*)::int as count from campaign_recipients r
         where r.campaign_id = ${campaignId} and not ${notSuppressed(userId, sql`r.email`)}`.execute(db)
    ).rows[0]?.count ?? 0,
  );

/**
 * How many recipients a campaign has, how many are role addresses (`genericNames`), how many
 * suppressed, and by the user's own results (`verdictOf`, the verification module's SQL
 * value), how many were never found valid and how many were found invalid.
 */
export const recipientFacts = async (
  db: Executor,
  userId: number,
  campaignId: number,
  genericNames: string[],
  verdictOf: (email: RawBuilder<unknown>) => RawBuilder<string | null> = () => sql`null::text`,
) =>
  (
    await sql<{ recipients: number; unverified: number; invalid: number; generic: number; suppressed: number }>`
      select count(*)::int as recipients,
             count(*) filter (where verdict is distinct from 'valid')::int as unverified,
             count(*) filter (where verdict = 'invalid')::int as invalid,
             count(*) filter (where split_part(lower(email), '@', 1) = any(${genericNames}::text[]))::int
               as generic,
             count(*) filter (where not ${notSuppressed(userId, sql`email`)})::int as suppressed
        from (select r.email, ${verdictOf(sql`r.email`)} as verdict
                from campaign_recipients r where r.campaign_id = ${campaignId}) d`.execute(db)
  ).rows[0]!;

/** The first recipients of a campaign, in the order they were added. */
export const recipientsSample = async (db: Executor, campaignId: number, limit: number) =>
  (
    await db
      .selectFrom('campaign_recipients')
      .select(['email', 'name', 'variables'])
      .where('campaign_id', '=', campaignId)
      .orderBy('id')
      .limit(limit)
      .execute()
  ).map((row) => ({ email: row.email, name: row.name, variables: (row.variables as Record<string, string>) ?? {} }));

/** Every recipient waits for email 1 from `startAt`; the suppressed start stopped (nothing will go to them). */
export const startRecipients = async (db: Executor, userId: number, campaignId: number, startAt: Date) => {
  await db
    .updateTable('campaign_recipients')
    .set({ due_at: startAt, next_position: 1, state: 'active' })
    .where('campaign_id', '=', campaignId)
    .execute();
  await db
    .updateTable('campaign_recipients')
    .set({ state: 'stopped', stop_reason: 'suppressed' })
    .where('campaign_id', '=', campaignId)
    .where(sql<boolean>`not ${notSuppressed(userId, sql`campaign_recipients.email`)}`)
    .execute();
};

/**
 * After the sequence changed: recipients waiting for a step move to its new position
 * (`mapping`: old → new), those past the last step are done, and those done who have a new
 * step at the end go on.
 */
export const moveRecipientsInSequence = async (
  db: Executor,
  campaignId: number,
  mapping: { from: number; to: number }[],
  stepCount: number,
) => {
  if (mapping.some((pair) => pair.from !== pair.to)) {
    await sql`
      update campaign_recipients r set next_position = m.to_position
        from jsonb_to_recordset(${JSON.stringify(mapping.map((pair) => ({ from_position: pair.from, to_position: pair.to })))}::jsonb)
             as m(from_position int, to_position int)
       where r.campaign_id = ${campaignId} and r.state = 'active' and r.next_position = m.from_position`.execute(db);
  }
  await sql`
    update campaign_recipients set state = 'done'
     where campaign_id = ${campaignId} and state = 'active' and next_position > ${stepCount}`.execute(db);
  await sql`
    update campaign_recipients set state = 'active'
     where campaign_id = ${campaignId} and state = 'done' and next_position <= ${stepCount}`.execute(db);
};

/** The Recipients page's rows: the user's recipients of a campaign, filtered by what happened to them, for `paginate`. */
export const recipientRowsQuery = (
  db: Executor,
  userId: number,
  campaignId: number,
  filter: z.output<typeof ZCampaignMembersQuery>['filter'],
) => {
  const base = db
    .selectFrom('campaign_recipients')
    .select([
      'campaign_recipients.id',
      'campaign_recipients.email',
      'campaign_recipients.name',
      'campaign_recipients.paused',
      'campaign_recipients.state',
      'campaign_recipients.stop_reason',
      'campaign_recipients.next_position',
      'campaign_recipients.due_at',
      'campaign_recipients.created_at',
      'campaign_recipients.variables',
    ])
    .where('campaign_recipients.campaign_id', '=', campaignId)
    .where('campaign_recipients.user_id', '=', userId);
  const messageExists = (condition: RawBuilder<unknown>) =>
    sql<boolean>`exists (select 1 from campaign_messages m where m.recipient_id = campaign_recipients.id and ${condition})`;
  switch (filter) {
    case 'paused':
      return base.where('campaign_recipients.paused', '=', true);
    case 'sent':
      return base.where(messageExists(sql`m.status = 'sent'`));
    case 'opened':
      return base.where(messageExists(sql`m.opened_at is not null`));
    case 'clicked':
      return base.where(messageExists(sql`m.clicked_at is not null`));
    case 'bounced':
      return base.where('campaign_recipients.stop_reason', '=', 'bounced');
    case 'unsubscribed':
      return base.where('campaign_recipients.stop_reason', '=', 'unsubscribed');
    case undefined:
      return base;
  }
};

/** One of the user's recipients, with what its messages' merge fields are filled from. */
export const findRecipient = (db: Executor, userId: number, recipientId: number) =>
  db
    .selectFrom('campaign_recipients')
    .select(['id', 'email', 'name', 'variables'])
    .where('id', '=', recipientId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

/** Pauses or resumes one recipient of a campaign; whether it was there. */
export const setRecipientPaused = async (db: Executor, campaignId: number, recipientId: number, paused: boolean) =>
  Number(
    (
      await db
        .updateTable('campaign_recipients')
        .set({ paused })
        .where('id', '=', recipientId)
        .where('campaign_id', '=', campaignId)
        .executeTakeFirst()
    ).numUpdatedRows,
  ) > 0;

/**
 * The recipient due first among the campaigns, active and not paused, locked for the
 * transaction; one another worker holds is passed over (SKIP LOCKED), never waited for.
 */
export const claimDueRecipient = (db: Executor, campaignIds: number[], now: Date) =>
  db
    .selectFrom('campaign_recipients')
    .selectAll()
    .where('campaign_id', 'in', campaignIds)
    .where('state', '=', 'active')
    .where('paused', '=', false)
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();

/** One recipient by id, locked for the transaction, or nothing when another worker holds it. */
export const claimRecipient = (db: Executor, recipientId: number) =>
  db
    .selectFrom('campaign_recipients')
    .selectAll()
    .where('id', '=', recipientId)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();

export const updateRecipient = (
  db: Executor,
  recipientId: number,
  changes: Updateable<{
    state: 'active' | 'done' | 'stopped';
    stop_reason: string | null;
    next_position: number;
    last_sent_at: Date;
    due_at: Date;
    thread_message_id: string | null;
    thread_subject: string | null;
  }>,
) => db.updateTable('campaign_recipients').set(changes).where('id', '=', recipientId).execute();

/** Stops a recipient for a reason, unless it was stopped already (the first reason stays). */
export const stopRecipient = (db: Executor, recipientId: number, reason: string) =>
  db
    .updateTable('campaign_recipients')
    .set({ state: 'stopped', stop_reason: reason })
    .where('id', '=', recipientId)
    .where('state', '<>', 'stopped')
    .execute();

// ---------------------------------------------------------------- messages

export const insertMessage = (db: Executor, row: Insertable<CampaignMessagesTable>) =>
  db.insertInto('campaign_messages').values(row).execute();

/** A recipient's messages in sequence order, the user's only. */
export const messagesOfRecipient = (db: Executor, userId: number, recipientId: number) =>
  db
    .selectFrom('campaign_messages')
    .select([
      'position',
      'subject',
      'body',
      'status',
      'error',
      'created_at',
      'sent_at',
      'delivered_at',
      'opened_at',
      'clicked_at',
    ])
    .where('recipient_id', '=', recipientId)
    .where('user_id', '=', userId)
    .orderBy('position')
    .orderBy('id')
    .execute();

/** When the account's last campaign message was handed over (its pace counts from it). */
export const lastHandOverAt = async (db: Executor, accountId: number) =>
  (
    await db
      .selectFrom('campaign_messages')
      .select('created_at')
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst()
  )?.created_at ?? null;

/** Messages each campaign handed over today, in its user's time zone. */
export const handedOverToday = async (db: Executor, campaignIds: number[], timeZone: string, now: Date) => {
  const rows = await sql<{ campaign_id: number; count: number }>`
    select campaign_id, count(*)::int as count from campaign_messages
     where campaign_id = any(${campaignIds}::bigint[])
       and created_at >= ((${now}::timestamptz at time zone ${timeZone})::date)::timestamp at time zone ${timeZone}
     group by campaign_id`.execute(db);
  return new Map(rows.rows.map((row) => [Number(row.campaign_id), row.count]));
};

/** An unopened or a click step's content as its step stores it (`follow_up`, `click_follow_up`). */
export type TConditionalStepContent = { waitDays: number; subject: string; body: string; link?: string };

type TStepMessage = {
  id: number;
  recipient_id: number;
  step_id: number;
  position: number;
  message_id: string | null;
  campaign_id: number;
};

/**
 * The oldest step message of the campaigns whose unopened step has come due: not opened
 * within that step's days, to a recipient neither stopped nor paused, with no unopened step
 * sent for it yet.
 */
export const oldestUnopenedDue = async (db: Executor, campaignIds: number[], now: Date) =>
  (
    await sql<TStepMessage & { follow_up: TConditionalStepContent }>`
      select m.id, m.recipient_id, m.step_id, m.position, m.message_id, m.campaign_id, s.follow_up
        from campaign_messages m
        join campaign_steps s on s.id = m.step_id
        join campaign_recipients r on r.id = m.recipient_id
       where m.campaign_id = any(${campaignIds}::bigint[]) and m.kind = 'step' and m.status <> 'failed'
         and s.follow_up is not null and s.deleted_at is null and m.opened_at is null
         and r.state <> 'stopped' and not r.paused
         and m.created_at + ((s.follow_up->>'waitDays')::int * interval '1 day') <= ${now}
         and not exists (select 1 from campaign_messages f
                          where f.step_id = m.step_id and f.recipient_id = m.recipient_id and f.kind = 'follow-up')
       order by m.created_at, m.id limit 1`.execute(db)
  ).rows[0];

/**
 * Step messages of the campaigns that were clicked and whose step has a click step not sent
 * yet, to recipients neither stopped nor paused, the earliest clicks first; whether the click
 * was on the click step's link, and long enough ago, the scheduler reads from the engine.
 */
export const clickedWithClickStep = async (db: Executor, campaignIds: number[], limit: number) =>
  (
    await sql<TStepMessage & { send_id: number; click_follow_up: TConditionalStepContent }>`
      select m.id, m.recipient_id, m.step_id, m.position, m.message_id, m.campaign_id, m.send_id, s.click_follow_up
        from campaign_messages m
        join campaign_steps s on s.id = m.step_id
        join campaign_recipients r on r.id = m.recipient_id
       where m.campaign_id = any(${campaignIds}::bigint[]) and m.kind = 'step'
         and s.click_follow_up is not null and s.deleted_at is null and m.clicked_at is not null
         and r.state <> 'stopped' and not r.paused
         and not exists (select 1 from campaign_messages f
                          where f.step_id = m.step_id and f.recipient_id = m.recipient_id and f.kind = 'click-follow-up')
       order by m.clicked_at, m.id limit ${limit}`.execute(db)
  ).rows;

/**
 * Messages still open (queued, or sent without a click yet) of the last 30 days, the least
 * recently asked about first, marked asked now: a tick's cost stays bounded and each open
 * message is asked about in turn.
 */
export const takeOpenMessages = async (db: Executor, limit: number) => {
  const open = await db
    .selectFrom('campaign_messages')
    .select([
      'id',
      'campaign_id',
      'send_id',
      'recipient_id',
      'status',
      'sent_at',
      'delivered_at',
      'opened_at',
      'clicked_at',
      'complained_at',
      'unsubscribed_at',
    ])
    .where((eb) =>
      eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'sent'), eb('clicked_at', 'is', null)])]),
    )
    .where('created_at', '>', new Date(Date.now() - 30 * 86_400_000))
    .where('send_id', 'is not', null)
    .orderBy(sql`synced_at nulls first`)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (open.length > 0) {
    await db
      .updateTable('campaign_messages')
      .set({ synced_at: new Date() })
      .where(
        'id',
        'in',
        open.map((message) => message.id),
      )
      .execute();
  }
  return open;
};

export const updateMessage = (db: Executor, id: number, changes: Updateable<CampaignMessagesTable>) =>
  db.updateTable('campaign_messages').set(changes).where('id', '=', id).execute();

/** The 30 days of the campaigns list's chart, per day in the user's time zone (GLOSSARY.md figures). */
export const dailyMessageFigures = async (db: Executor, userId: number, timeZone: string) =>
  (
    await sql<{ day: string; sent: number; delivered: number; opened: number; clicked: number }>`
      with days as (
        select generate_series((now() at time zone ${timeZone})::date - 29, (now() at time zone ${timeZone})::date, interval '1 day')::date as day
      )
      select to_char(d.day, 'YYYY-MM-DD') as day,
             count(m.id) filter (where m.sent_at is not null)::int as sent,
             count(m.id) filter (where m.delivered_at is not null)::int as delivered,
             count(m.id) filter (where m.opened_at is not null)::int as opened,
             count(m.id) filter (where m.clicked_at is not null)::int as clicked
        from days d
        left join campaign_messages m
          on m.user_id = ${userId} and (m.created_at at time zone ${timeZone})::date = d.day
       group by d.day order by d.day`.execute(db)
  ).rows;

/** The overview's counts (GLOSSARY.md figures, per message: each is one recipient of an engine send). */
export const campaignFigures = async (db: Executor, campaignId: number) =>
  (
    await sql<TCampaignCounts>`
      select (select count(*)::int from campaign_recipients where campaign_id = ${campaignId}) as recipients,
             (select count(*)::int from campaign_steps where campaign_id = ${campaignId} and deleted_at is null) as emails,
             count(*) filter (where m.sent_at is not null)::int as sent,
             count(*) filter (where m.status = 'queued')::int as queued,
             count(*) filter (where m.delivered_at is not null)::int as delivered,
             count(*) filter (where m.opened_at is not null)::int as opened,
             count(*) filter (where m.clicked_at is not null)::int as clicked,
             count(*) filter (where m.status = 'failed')::int as bounced,
             count(*) filter (where m.unsubscribed_at is not null)::int as unsubscribed
        from campaign_messages m where m.campaign_id = ${campaignId}`.execute(db)
  ).rows[0]!;
