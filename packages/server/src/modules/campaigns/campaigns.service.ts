import crypto from 'node:crypto';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_MESSAGES,
  defaultDailyPlan,
  isGenericEmail,
  overviewPercentages,
  readEmailCell,
  type TCampaignCounts,
  type TCampaignDraft,
  type TCampaignEmail,
  type TCampaignGeneral,
  type TCampaignMember,
  type TCampaignRow,
  type TDailyPlan,
  withSignature,
  type ZCampaignMembersQuery,
  type ZCampaignOptions,
  type ZCampaignRecipients,
  type ZCampaignSettings,
  type ZCampaignStart,
  type ZDripEmail,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { listAccountRows } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { dailyCapOf } from '../delivery/delivery.service';
import { genericNames } from '../lists/lists.service';
import { resolveSender } from '../send-email/send-email.service';
import { notSuppressed } from '../suppression/suppression.service';
import { tickCampaignsJob } from './campaigns.jobs';

/**
 * Drip campaigns: the wizard's drafts (found by their temporary key, each step saved to the
 * server), the saved campaigns and their views. The scheduler (`scheduler.ts`) hands each
 * recipient's next step to the delivery engine.
 */

const newKey = () => crypto.randomBytes(18).toString('base64url');

const findCampaignRow = (db: Executor, userId: number, where: { id?: number; key?: string }) => {
  let query = db.selectFrom('campaigns').selectAll().where('user_id', '=', userId);
  if (where.id !== undefined) query = query.where('id', '=', where.id);
  if (where.key !== undefined) query = query.where('temporary_key', '=', where.key).where('is_draft', '=', true);
  return query.executeTakeFirst();
};

const requireDraft = async (db: Executor, userId: number, key: string) => {
  const row = await findCampaignRow(db, userId, { key });
  if (!row) throw notFound('This unsaved campaign does not exist any more.');
  return row;
};

const requireCampaign = async (db: Executor, userId: number, id: number) => {
  const row = await findCampaignRow(db, userId, { id });
  if (!row) throw notFound('This campaign does not exist.');
  return row!;
};

/** Saving a step unlocks the next (spec §4): the furthest step reached only grows. */
const reach = (db: Executor, id: number, step: number) =>
  db
    .updateTable('campaigns')
    .set({ step: sql`greatest(step, ${Math.min(6, step)})`, updated_at: new Date() })
    .where('id', '=', id)
    .execute();

// ---------------------------------------------------------------- wizard

/** Step 1 (Start): title, sender and signature; a new draft and its temporary key the first time. */
export const saveStart = async (platform: TPlatform, userId: number, input: z.output<typeof ZCampaignStart>) => {
  const sender = await resolveSender(platform, userId, {
    account: input.accountId,
    from: '',
    senderName: input.senderName,
    alias: input.alias,
    useSubdomain: input.useSubdomain,
  });
  const values = {
    account_id: sender.account.id,
    title: input.title,
    sender_name: sender.fromName,
    alias: input.alias,
    use_subdomain: input.useSubdomain,
    from_address: sender.fromAddress,
    signature: input.signature.trim(),
    signature_document: input.signatureDocument,
  };
  if (input.temporary) {
    const draft = await requireDraft(platform.db, userId, input.temporary);
    await platform.db.updateTable('campaigns').set(values).where('id', '=', draft.id).execute();
    await reach(platform.db, draft.id, 2);
    return { id: draft.id, temporaryKey: input.temporary };
  }
  const key = newKey();
  const row = await platform.db
    .insertInto('campaigns')
    .values({ ...values, user_id: userId, temporary_key: key, step: 2, daily_plan: JSON.stringify(defaultDailyPlan()) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, temporaryKey: key };
};

/**
 * Step 2 (Recipients): addresses read by the list import's rules, generic ones left out when
 * asked, one recipient per address (a later row updates the earlier), custom variables kept.
 */
export const saveRecipients = async (
  platform: TPlatform,
  userId: number,
  input: z.output<typeof ZCampaignRecipients>,
) => {
  const draft = await requireDraft(platform.db, userId, input.temporary);
  const generic = genericNames(platform);
  const rows = new Map<string, { email: string; name: string; variables: Record<string, string> }>();
  let skipped = 0;
  for (const recipient of input.recipients) {
    const email = readEmailCell(recipient.email).email;
    if (!email || (input.removeGeneric && isGenericEmail(email, generic))) {
      skipped += 1;
      continue;
    }
    const variables = Object.fromEntries(
      Object.entries(recipient.variables).filter(([key, value]) => key.trim() && value.trim() !== ''),
    );
    rows.set(email.toLowerCase(), { email, name: recipient.name.trim(), variables });
  }
  const recipients = [...rows.values()];
  const added = await platform.db.transaction().execute(async (trx) => {
    if (input.replace) await trx.deleteFrom('campaign_recipients').where('campaign_id', '=', draft.id).execute();
    let count = 0;
    for (let start = 0; start < recipients.length; start += 5_000) {
      const chunk = recipients.slice(start, start + 5_000);
      const result = await sql`
        insert into campaign_recipients (campaign_id, user_id, email, name, variables)
        select ${draft.id}, ${userId}, r.email, r.name, r.variables
          from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as r(email text, name text, variables jsonb)
        on conflict (campaign_id, lower(email)) do update set name = excluded.name, variables = excluded.variables`.execute(
        trx,
      );
      count += Number(result.numAffectedRows ?? 0);
    }
    const keys = [...new Set(recipients.flatMap((recipient) => Object.keys(recipient.variables)))];
    await trx
      .updateTable('campaigns')
      .set({
        variables: sql`(select coalesce(jsonb_agg(distinct v), '[]'::jsonb) from (
            select jsonb_array_elements_text(variables) as v union select unnest(${keys}::text[])) k)`,
      })
      .where('id', '=', draft.id)
      .execute();
    return count;
  });
  const total = await countRecipients(platform.db, draft.id);
  if (total === 0) throw new ValidationError({ recipients: ['No address in this file could be added.'] });
  await reach(platform.db, draft.id, 3);
  return { count: total, added, skipped, suppressed: await countSuppressedRecipients(platform.db, userId, draft.id) };
};

/**
 * A campaign's recipients Sendwell will not send to: bounced, complained or unsubscribed
 * before (the user's suppressions). They stay on the campaign, stopped, so the user sees why.
 */
const countSuppressedRecipients = async (db: Executor, userId: number, campaignId: number) =>
  Number(
    (
      await sql<{ count: number }>`
        select count(*)::int as count from campaign_recipients r
         where r.campaign_id = ${campaignId} and not ${notSuppressed(userId, sql`r.email`)}`.execute(db)
    ).rows[0]?.count ?? 0,
  );

const countRecipients = async (db: Executor, campaignId: number) =>
  Number(
    (
      await db
        .selectFrom('campaign_recipients')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('campaign_id', '=', campaignId)
        .executeTakeFirstOrThrow()
    ).count,
  );

type TDripInput = z.output<typeof ZDripEmail>;

/**
 * Writes a sequence: steps matched by id keep their id (their messages' history stays with
 * them), new ones are added, missing ones are deleted (kept for history, out of the
 * sequence); positions follow the given order. Recipients keep their place: one waiting for
 * a deleted step waits for the step after it; one past the last step is done. Messages
 * already handed to the engine are not touched (spec: editing does not affect the queue).
 */
const writeSequence = async (
  trx: Executor,
  campaign: { id: number; user_id: number },
  drips: TDripInput[],
  dailyPlan: TDailyPlan,
) => {
  const existing = await trx
    .selectFrom('campaign_steps')
    .select(['id', 'position'])
    .where('campaign_id', '=', campaign.id)
    .where('deleted_at', 'is', null)
    .orderBy('position')
    .execute();
  const kept = new Set(drips.flatMap((drip) => (drip.id ? [drip.id] : [])));
  const ids: number[] = [];
  for (const [index, drip] of drips.entries()) {
    const values = {
      position: index + 1,
      subject: drip.subject,
      body: drip.body,
      body_document: drip.bodyDocument ? JSON.stringify(drip.bodyDocument) : null,
      reply_to: drip.replyTo,
      global_reply: index === 0 && drip.globalReply,
      period: index === 0 ? 0 : drip.period,
      frequency: drip.frequency,
      follow_up: drip.followUp ? JSON.stringify(drip.followUp) : null,
      click_follow_up: drip.clickFollowUp ? JSON.stringify(drip.clickFollowUp) : null,
    };
    if (drip.id && existing.some((step) => step.id === drip.id)) {
      await trx.updateTable('campaign_steps').set(values).where('id', '=', drip.id).execute();
      ids.push(drip.id);
    } else {
      const row = await trx
        .insertInto('campaign_steps')
        .values({ ...values, campaign_id: campaign.id, user_id: campaign.user_id })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
  }
  const removed = existing.filter((step) => !kept.has(step.id));
  if (removed.length > 0) {
    await trx
      .updateTable('campaign_steps')
      .set({ deleted_at: new Date() })
      .where(
        'id',
        'in',
        removed.map((step) => step.id),
      )
      .execute();
  }
  // Old position → new position: a kept step's own, a deleted one's next kept step's.
  const mapping = existing.map((step) => {
    const later = existing.filter((other) => other.position >= step.position && kept.has(other.id));
    const target = later[0] ? ids.indexOf(later[0].id) + 1 : ids.length + 1;
    return { from: step.position, to: target };
  });
  if (mapping.some((pair) => pair.from !== pair.to)) {
    await sql`
      update campaign_recipients r set next_position = m.to_position
        from jsonb_to_recordset(${JSON.stringify(mapping.map((pair) => ({ from_position: pair.from, to_position: pair.to })))}::jsonb)
             as m(from_position int, to_position int)
       where r.campaign_id = ${campaign.id} and r.state = 'active' and r.next_position = m.from_position`.execute(trx);
  }
  await sql`
    update campaign_recipients set state = 'done'
     where campaign_id = ${campaign.id} and state = 'active' and next_position > ${ids.length}`.execute(trx);
  // A recipient who has run out of steps and gets a new one at the end goes on.
  await sql`
    update campaign_recipients set state = 'active'
     where campaign_id = ${campaign.id} and state = 'done' and next_position <= ${ids.length}`.execute(trx);
  await trx
    .updateTable('campaigns')
    .set({ daily_plan: JSON.stringify(dailyPlan), updated_at: new Date() })
    .where('id', '=', campaign.id)
    .execute();
};

/** Step 3 (Compose): the sequence and the weekday windows. */
export const saveSequence = async (
  platform: TPlatform,
  userId: number,
  key: string,
  input: { drips: TDripInput[]; dailyPlan: TDailyPlan },
) => {
  const draft = await requireDraft(platform.db, userId, key);
  await platform.db.transaction().execute((trx) => writeSequence(trx, draft, input.drips, input.dailyPlan));
  await reach(platform.db, draft.id, 4);
};

/** Step 4 (Preview) seen. */
export const savePreview = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  if (draft.step < 4) throw new HttpError(409, 'Write the emails of the campaign first.', 'STEP_MISSING');
  await reach(platform.db, draft.id, 5);
};

/** Step 5 (Options). */
export const saveOptions = async (
  platform: TPlatform,
  userId: number,
  key: string,
  options: z.output<typeof ZCampaignOptions>,
) => {
  const draft = await requireDraft(platform.db, userId, key);
  const scheduleAt = options.scheduled && options.scheduleTime ? new Date(options.scheduleTime) : null;
  if (scheduleAt && scheduleAt.getTime() < Date.now() - 60_000) {
    throw new ValidationError({ scheduleTime: ['The first campaign mail must go in the future.'] });
  }
  await platform.db
    .updateTable('campaigns')
    .set({
      track_opens: options.trackOpens,
      track_clicks: options.trackClicks,
      schedule_at: scheduleAt,
      accept_law: options.acceptLaw,
    })
    .where('id', '=', draft.id)
    .execute();
  await reach(platform.db, draft.id, 6);
};

/** Step 6 (Finish): the campaign is saved and runs (from its scheduled time, when it has one). */
export const finishCampaign = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  const [recipients, steps] = await Promise.all([
    countRecipients(platform.db, draft.id),
    platform.db
      .selectFrom('campaign_steps')
      .select('id')
      .where('campaign_id', '=', draft.id)
      .where('deleted_at', 'is', null)
      .execute(),
  ]);
  const missing =
    !draft.title || !draft.account_id
      ? 'the campaign’s title and sender'
      : recipients === 0
        ? 'recipients'
        : steps.length === 0
          ? 'emails'
          : !draft.accept_law
            ? 'the acceptance of the law and terms'
            : null;
  if (missing) throw new HttpError(409, `The campaign cannot start without ${missing}.`, 'STEP_MISSING');
  const startAt = draft.schedule_at ?? new Date();
  await platform.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('campaigns')
      .set({ is_draft: false, temporary_key: null, running: true, step: 6, updated_at: new Date() })
      .where('id', '=', draft.id)
      .execute();
    await trx
      .updateTable('campaign_recipients')
      .set({ due_at: startAt, next_position: 1, state: 'active' })
      .where('campaign_id', '=', draft.id)
      .execute();
    // Suppressed addresses start stopped, not waiting for email 1: nothing will go to them.
    await trx
      .updateTable('campaign_recipients')
      .set({ state: 'stopped', stop_reason: 'suppressed' })
      .where('campaign_id', '=', draft.id)
      .where(sql<boolean>`not ${notSuppressed(userId, sql`campaign_recipients.email`)}`)
      .execute();
    await platform.queue.enqueue(tickCampaignsJob, {}, { executor: trx, startAfter: startAt });
  });
  return draft.id;
};

/**
 * What a draft will send when it starts, for the pre-send check at the wizard's Finish (issue
 * 31 §1): its account and sender, each email as the scheduler composes it (the signature
 * after the body, the first email's reply-to when it is for all), and its recipients: how
 * many, how many are role addresses, how many are suppressed (they start stopped).
 */
export const campaignStartFacts = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  if (!draft.account_id)
    throw new HttpError(409, 'The campaign cannot start without the campaign’s title and sender.', 'STEP_MISSING');
  const steps = await platform.db
    .selectFrom('campaign_steps')
    .select(['position', 'subject', 'body', 'reply_to', 'global_reply'])
    .where('campaign_id', '=', draft.id)
    .where('deleted_at', 'is', null)
    .orderBy('position')
    .execute();
  const first = steps[0];
  const facts = (
    await sql<{ recipients: number; generic: number; suppressed: number }>`
      select count(*)::int as recipients,
             count(*) filter (where split_part(lower(r.email), '@', 1) = any(${[...genericNames(platform)]}::text[]))::int
               as generic,
             count(*) filter (where not ${notSuppressed(userId, sql`r.email`)})::int as suppressed
        from campaign_recipients r where r.campaign_id = ${draft.id}`.execute(platform.db)
  ).rows[0]!;
  return {
    accountId: draft.account_id,
    fromName: draft.sender_name,
    fromAddress: draft.from_address,
    trackOpens: draft.track_opens,
    trackClicks: draft.track_clicks,
    emails: steps.map((step) => ({
      position: step.position,
      subject: step.subject,
      html: withSignature(step.body, draft.signature),
      replyTo: step.reply_to || (first?.global_reply ? first.reply_to : ''),
    })),
    recipients: facts,
  };
};

export const draftKeyOf = async (platform: TPlatform, userId: number, id: number) => {
  const row = await findCampaignRow(platform.db, userId, { id });
  if (!row?.is_draft || !row.temporary_key) throw notFound('This unsaved campaign does not exist any more.');
  return row.temporary_key;
};

const stepsOf = (db: Executor, campaignId: number) =>
  db
    .selectFrom('campaign_steps')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('deleted_at', 'is', null)
    .orderBy('position')
    .execute();

/** `POST /api/campaigns/get-temporary-data`: what the wizard resumes with. */
export const draftData = async (platform: TPlatform, userId: number, key: string): Promise<TCampaignDraft> => {
  const draft = await requireDraft(platform.db, userId, key);
  const [steps, count, sample] = await Promise.all([
    stepsOf(platform.db, draft.id),
    countRecipients(platform.db, draft.id),
    recipientsSample(platform.db, draft.id, 3),
  ]);
  return {
    id: draft.id,
    temporaryKey: key,
    step: draft.step,
    start: {
      accountId: draft.account_id,
      title: draft.title,
      senderName: draft.sender_name,
      alias: draft.alias,
      useSubdomain: draft.use_subdomain,
      signature: draft.signature,
      signatureDocument: draft.signature_document ?? null,
      from: draft.sender_name ? `${draft.sender_name} <${draft.from_address}>` : draft.from_address,
    },
    recipients: { count, variables: (draft.variables as string[]) ?? [], sample },
    drips: steps.map((step) => ({
      id: step.id,
      subject: step.subject,
      body: step.body,
      bodyDocument: (step.body_document as TCampaignDraft['drips'][number]['bodyDocument']) ?? null,
      replyTo: step.reply_to,
      globalReply: step.global_reply,
      period: step.period,
      frequency: step.frequency,
      followUp: (step.follow_up as TCampaignDraft['drips'][number]['followUp']) ?? null,
      clickFollowUp: (step.click_follow_up as TCampaignDraft['drips'][number]['clickFollowUp']) ?? null,
    })),
    dailyPlan: draft.daily_plan as TDailyPlan,
    options: {
      trackOpens: draft.track_opens,
      trackClicks: draft.track_clicks,
      scheduled: draft.schedule_at !== null,
      scheduleTime: draft.schedule_at?.toISOString() ?? null,
      acceptLaw: draft.accept_law,
    },
  };
};

const recipientsSample = async (db: Executor, campaignId: number, limit: number) =>
  (
    await db
      .selectFrom('campaign_recipients')
      .select(['email', 'name', 'variables'])
      .where('campaign_id', '=', campaignId)
      .orderBy('id')
      .limit(limit)
      .execute()
  ).map((row) => ({ email: row.email, name: row.name, variables: (row.variables as Record<string, string>) ?? {} }));

/** The preview step's recipients (spec §9: up to 50). */
export const previewRecipients = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  return {
    recipients: await recipientsSample(platform.db, draft.id, CAMPAIGN_DEFAULTS.previewRecipients),
    total: await countRecipients(platform.db, draft.id),
  };
};

/** `POST /api/campaigns/remove-recipients`: the draft's recipients, all of them (a new file replaces them). */
export const removeDraftRecipients = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  const result = await platform.db
    .deleteFrom('campaign_recipients')
    .where('campaign_id', '=', draft.id)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

// ---------------------------------------------------------------- views

const statusOf = (row: { is_draft: boolean; running: boolean; schedule_at: Date | null; active: number }) =>
  row.is_draft
    ? ('draft' as const)
    : row.active === 0
      ? ('finished' as const)
      : !row.running
        ? ('paused' as const)
        : row.schedule_at && row.schedule_at.getTime() > Date.now()
          ? ('scheduled' as const)
          : ('running' as const);

/** `GET /api/campaigns`: saved campaigns, or with `temporary=1` the unsaved ones. */
export const listCampaigns = async (
  platform: TPlatform,
  userId: number,
  query: {
    page: number;
    per_page: number;
    column: 'created_at' | 'title';
    order: 'asc' | 'desc';
    search?: string;
    temporary: number;
  },
) => {
  const page = await paginate(
    platform.db
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
      .where('campaigns.is_draft', '=', query.temporary === 1),
    query,
    {
      sortColumns: { created_at: 'campaigns.created_at', title: sql`lower(campaigns.title)` },
      searchColumns: ['campaigns.title'],
      tieBreaker: 'campaigns.id',
    },
  );
  const names = new Map((await listAccountRows(platform.db, userId)).map((account) => [account.id, account.name]));
  return {
    data: page.data.map(
      (row): TCampaignRow => ({
        id: row.id,
        title: row.title || '(untitled)',
        running: row.running,
        status: statusOf(row),
        created_at: row.created_at.toISOString(),
        account_name: row.account_id === null ? null : (names.get(row.account_id) ?? null),
        step: row.step,
        members_count: row.members_count,
        sent_count: row.sent_count,
        opened_count: row.opened_count,
        bounced_count: row.bounced_count,
      }),
    ),
    meta: page.meta,
  };
};

/** `GET /api/campaigns/get-data/list-statistics`: the last 30 days, per day in the user's time zone. */
export const listStatistics = async (platform: TPlatform, userId: number) => {
  const timeZone = await timeZoneOf(platform.db, userId);
  const rows = await sql<{ day: string; sent: number; delivered: number; opened: number; clicked: number }>`
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
     group by d.day order by d.day`.execute(platform.db);
  return {
    days: rows.rows.map((row) => row.day),
    sent: rows.rows.map((row) => row.sent),
    delivered: rows.rows.map((row) => row.delivered),
    opened: rows.rows.map((row) => row.opened),
    clicked: rows.rows.map((row) => row.clicked),
  };
};

/** Start or stop a saved campaign; a started one is looked at by the scheduler at once. */
export const setCampaignRunning = async (platform: TPlatform, userId: number, id: number, running: boolean) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  if (campaign.is_draft) throw new HttpError(409, 'Finish the campaign first.', 'DRAFT');
  await platform.db.transaction().execute(async (trx) => {
    // Started again, a campaign the circuit breaker stopped is judged anew on what goes from now on.
    await trx
      .updateTable('campaigns')
      .set({ running, updated_at: new Date(), ...(running ? { breaker_reason: null } : {}) })
      .where('id', '=', id)
      .execute();
    if (running) await platform.queue.enqueue(tickCampaignsJob, {}, { executor: trx });
  });
  return running ? CAMPAIGN_MESSAGES.started : CAMPAIGN_MESSAGES.stopped;
};

const countActiveRecipients = async (db: Executor, campaignId: number) =>
  Number(
    (
      await db
        .selectFrom('campaign_recipients')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('campaign_id', '=', campaignId)
        .where('state', '=', 'active')
        .executeTakeFirstOrThrow()
    ).count,
  );

export const campaignGeneral = async (platform: TPlatform, userId: number, id: number): Promise<TCampaignGeneral> => {
  const campaign = await requireCampaign(platform.db, userId, id);
  const [accounts, active] = await Promise.all([
    listAccountRows(platform.db, userId),
    countActiveRecipients(platform.db, id),
  ]);
  const account = accounts.find((row) => row.id === campaign.account_id);
  return {
    id: campaign.id,
    title: campaign.title,
    status: campaign.running,
    state: statusOf({ ...campaign, active }),
    schedule_at: campaign.schedule_at?.toISOString() ?? null,
    signature: campaign.signature,
    signature_document: campaign.signature_document ?? null,
    sender_name: campaign.sender_name,
    alias: campaign.alias,
    domain: campaign.from_address.split('@')[1] ?? '',
    provider: account?.provider ?? null,
    account_name: account?.name ?? null,
    mail_per_day: campaign.mail_per_day,
    mail_per_delay: campaign.mail_per_delay,
    account_limit: account ? dailyCapOf(account) : null,
    from: campaign.sender_name ? `${campaign.sender_name} <${campaign.from_address}>` : campaign.from_address,
    track_opens: campaign.track_opens,
    dailyPlan: campaign.daily_plan as TDailyPlan,
    is_draft: campaign.is_draft,
    breaker_reason: campaign.breaker_reason,
  };
};

/** The overview's counts; the page computes the spec's percentages from them. */
export const campaignCounts = async (platform: TPlatform, userId: number, id: number): Promise<TCampaignCounts> => {
  await requireCampaign(platform.db, userId, id);
  const row = await sql<TCampaignCounts>`
    select (select count(*)::int from campaign_recipients where campaign_id = ${id}) as recipients,
           (select count(*)::int from campaign_steps where campaign_id = ${id} and deleted_at is null) as emails,
           -- The figures of GLOSSARY.md (R33), per message: each is one recipient of an engine send.
           count(*) filter (where m.sent_at is not null)::int as sent,
           count(*) filter (where m.status = 'queued')::int as queued,
           count(*) filter (where m.delivered_at is not null)::int as delivered,
           count(*) filter (where m.opened_at is not null)::int as opened,
           count(*) filter (where m.clicked_at is not null)::int as clicked,
           count(*) filter (where m.status = 'failed')::int as bounced,
           count(*) filter (where m.unsubscribed_at is not null)::int as unsubscribed
      from campaign_messages m where m.campaign_id = ${id}`.execute(platform.db);
  return row.rows[0]!;
};

export { overviewPercentages };

/** The E-Mails page: each step with its counts. */
export const campaignEmails = async (platform: TPlatform, userId: number, id: number) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  const steps = await sql<TCampaignEmail & { position: number }>`
    select s.id, s.position as "order", s.subject, s.body, s.body_document, s.reply_to, s.global_reply, s.period, s.frequency,
           s.follow_up, s.click_follow_up,
           s.position = 1 as first,
           count(m.id) filter (where m.sent_at is not null)::int as sent_count,
           count(m.id) filter (where m.status = 'queued')::int as queued_count,
           count(m.id) filter (where m.delivered_at is not null)::int as delivered_count,
           count(m.id) filter (where m.opened_at is not null)::int as opened_count,
           count(m.id) filter (where m.clicked_at is not null)::int as clicked_count,
           count(m.id) filter (where m.status = 'failed')::int as bounced_count
      from campaign_steps s left join campaign_messages m on m.step_id = s.id and m.kind = 'step'
     where s.campaign_id = ${id} and s.deleted_at is null
     group by s.id order by s.position`.execute(platform.db);
  return { emails: steps.rows, dailyPlan: campaign.daily_plan as TDailyPlan };
};

/** `POST /api/campaigns/save-data/emails/{id}`: Edit Sequence on a saved campaign. */
export const saveCampaignEmails = async (
  platform: TPlatform,
  userId: number,
  id: number,
  input: { emails: TDripInput[]; dailyPlan: TDailyPlan },
) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  await platform.db.transaction().execute((trx) => writeSequence(trx, campaign, input.emails, input.dailyPlan));
};

export const saveCampaignSettings = async (
  platform: TPlatform,
  userId: number,
  id: number,
  input: z.output<typeof ZCampaignSettings>,
) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  if (!campaign.account_id) throw new HttpError(409, 'The campaign’s sending account was deleted.', 'NO_ACCOUNT');
  const sender = await resolveSender(platform, userId, {
    account: campaign.account_id,
    from: '',
    senderName: input.from,
    alias: input.alias ?? campaign.alias,
    useSubdomain: campaign.use_subdomain,
  });
  const limit = dailyCapOf(sender.account);
  if (limit !== null && input.mailPerDay > limit) {
    throw new ValidationError({ mailPerDay: [`At most ${limit} a day: the account's own limit.`] });
  }
  await platform.db
    .updateTable('campaigns')
    .set({
      title: input.title,
      sender_name: sender.fromName,
      alias: input.alias ?? campaign.alias,
      from_address: sender.fromAddress,
      signature: input.signature.trim(),
      signature_document: input.signatureDocument,
      mail_per_day: input.mailPerDay,
      mail_per_delay: input.mailPerDelay,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
};

export const campaignVariables = async (platform: TPlatform, userId: number, id: number) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  return ['email', 'name', ...((campaign.variables as string[]) ?? [])];
};

/** The Recipients page: paged, searched, filtered by what happened to them. */
export const campaignMembers = async (
  platform: TPlatform,
  userId: number,
  id: number,
  query: z.output<typeof ZCampaignMembersQuery>,
) => {
  await requireCampaign(platform.db, userId, id);
  let base = platform.db
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
    .where('campaign_recipients.campaign_id', '=', id)
    .where('campaign_recipients.user_id', '=', userId);
  const messageExists = (condition: ReturnType<typeof sql>) =>
    sql<boolean>`exists (select 1 from campaign_messages m where m.recipient_id = campaign_recipients.id and ${condition})`;
  switch (query.filter) {
    case 'paused':
      base = base.where('campaign_recipients.paused', '=', true);
      break;
    case 'sent':
      base = base.where(messageExists(sql`m.status = 'sent'`));
      break;
    case 'opened':
      base = base.where(messageExists(sql`m.opened_at is not null`));
      break;
    case 'clicked':
      base = base.where(messageExists(sql`m.clicked_at is not null`));
      break;
    case 'bounced':
      base = base.where('campaign_recipients.stop_reason', '=', 'bounced');
      break;
    case 'unsubscribed':
      base = base.where('campaign_recipients.stop_reason', '=', 'unsubscribed');
      break;
  }
  const page = await paginate(base, query, {
    sortColumns: { email: sql`lower(campaign_recipients.email)`, created_at: 'campaign_recipients.created_at' },
    searchColumns: ['campaign_recipients.email', 'campaign_recipients.name'],
    tieBreaker: 'campaign_recipients.id',
  });
  return {
    data: page.data.map(
      (row): TCampaignMember => ({
        id: row.id,
        email: row.email,
        name: row.name,
        status: !row.paused,
        state: row.state,
        stop_reason: row.stop_reason,
        next_position: row.next_position,
        due_at: row.state === 'active' ? row.due_at.toISOString() : null,
        created_at: row.created_at.toISOString(),
        variables: Object.entries((row.variables as Record<string, string>) ?? {}).map(([field_key, field_value]) => ({
          field_key,
          field_value,
        })),
      }),
    ),
    meta: page.meta,
  };
};

/** A recipient's history: each message handed over, and what became of it. */
export const recipientHistory = async (platform: TPlatform, userId: number, recipientId: number) => {
  const messages = await platform.db
    .selectFrom('campaign_messages')
    .select(['position', 'subject', 'body', 'status', 'error', 'created_at', 'sent_at', 'opened_at', 'clicked_at'])
    .where('recipient_id', '=', recipientId)
    .where('user_id', '=', userId)
    .orderBy('position')
    .execute();
  if (messages.length === 0) {
    const exists = await platform.db
      .selectFrom('campaign_recipients')
      .select('id')
      .where('id', '=', recipientId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!exists) throw notFound('This recipient does not exist.');
  }
  return messages.flatMap((message) => {
    const base = { subject: message.subject, body: message.body, order: message.position, message: message.error };
    const events = [
      {
        ...base,
        event_type:
          message.status === 'failed'
            ? ('failed' as const)
            : message.status === 'sent'
              ? ('delivered' as const)
              : ('queued' as const),
        created_at: (message.sent_at ?? message.created_at).toISOString(),
      },
    ];
    if (message.opened_at)
      events.push({ ...base, event_type: 'opened' as never, created_at: message.opened_at.toISOString() });
    if (message.clicked_at)
      events.push({ ...base, event_type: 'clicked' as never, created_at: message.clicked_at.toISOString() });
    return events;
  });
};

export const setRecipientRunning = async (
  platform: TPlatform,
  userId: number,
  id: number,
  recipientId: number,
  running: boolean,
) => {
  await requireCampaign(platform.db, userId, id);
  const result = await platform.db
    .updateTable('campaign_recipients')
    .set({ paused: !running })
    .where('id', '=', recipientId)
    .where('campaign_id', '=', id)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw notFound('This recipient does not exist.');
};

/**
 * Deletes campaigns, saved or unsaved, with their recipients and steps. Messages already
 * handed to the sending account are not recalled (they are engine sends); a tick that was
 * about to hand one over rolls back with the missing recipient.
 */
export const deleteCampaigns = async (platform: TPlatform, userId: number, ids: number[]) => {
  const result = await platform.db
    .deleteFrom('campaigns')
    .where('user_id', '=', userId)
    .where('id', 'in', ids)
    .executeTakeFirst();
  const deleted = Number(result.numDeletedRows);
  if (deleted === 0) throw notFound('These campaigns do not exist.');
  return deleted;
};

export const deleteRecipients = async (platform: TPlatform, userId: number, id: number, ids: number[]) => {
  await requireCampaign(platform.db, userId, id);
  const result = await platform.db
    .deleteFrom('campaign_recipients')
    .where('campaign_id', '=', id)
    .where('user_id', '=', userId)
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
