import { addWait, isWithinWindow, type TDailyPlan, withSignature } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { timeZoneOf } from '../auth/auth.service';
import {
  createSourcedSend,
  firstClicksOf,
  sourcedOutcomesOfSends,
  sourcedSendOutcomes,
} from '../delivery/delivery.service';
import { isVerifiedInvalid } from '../verification/verification.service';
import { judgeCampaigns } from './campaign-breaker.service';

/**
 * The drip scheduler: each tick learns what became of recent messages (sent, failed,
 * opened, clicked; a bounce or an unsubscribe stops the recipient), then, per sending
 * account, hands the engine the next due step of one recipient when the account's pace
 * allows it: at least the campaigns' mail-per-delay seconds since its last drip mail, under
 * each campaign's mail per day, inside the campaign's weekday windows in the user's time
 * zone. A hand-over is one transaction: the engine send, the message row (once per step and
 * recipient), and the recipient's next step and due time commit together or not at all.
 */

/** Keeps the advisory locks of drip accounts apart from others (the account id second). */
const DRIP_LOCK_CLASS = 0x0d12_1b00;
/** Hand-overs per account per tick at most (a short delay and a long-stopped worker catch up gradually). */
const MAX_PER_ACCOUNT_PER_TICK = 50;
/** Open messages asked about per tick, the least recently asked first: a tick's cost stays bounded. */
const SYNC_PER_TICK = 500;

type TCampaign = {
  id: number;
  user_id: number;
  account_id: number;
  sender_name: string;
  from_address: string;
  signature: string;
  track_opens: boolean;
  track_clicks: boolean;
  mail_per_day: number;
  mail_per_delay: number;
  daily_plan: TDailyPlan;
};

const runningCampaigns = async (db: Executor, now: Date) =>
  (await db
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
    .execute()) as TCampaign[];

/** Messages each campaign handed over today, in its user's time zone. */
const sentTodayBy = async (db: Executor, campaignIds: number[], timeZone: string, now: Date) => {
  const rows = await sql<{ campaign_id: number; count: number }>`
    select campaign_id, count(*)::int as count from campaign_messages
     where campaign_id = any(${campaignIds}::bigint[])
       and created_at >= ((${now}::timestamptz at time zone ${timeZone})::date)::timestamp at time zone ${timeZone}
     group by campaign_id`.execute(db);
  return new Map(rows.rows.map((row) => [Number(row.campaign_id), row.count]));
};

/** What follows "Re: " of a first subject, for threading. */
const threadsWith = (subject: string, threadSubject: string | null) =>
  threadSubject !== null &&
  (subject === threadSubject ||
    subject.replace(/^(re|aw|fwd?):\s*/i, '') === threadSubject.replace(/^(re|aw|fwd?):\s*/i, ''));

type THandOver = 'sent' | 'stopped' | 'none';

type TRecipientRow = { id: number; email: string; name: string; variables: unknown };

type THandOverMessage = {
  campaign: TCampaign;
  accountId: number;
  recipient: TRecipientRow;
  subject: string;
  /** The email's body; the campaign's signature follows it. */
  body: string;
  /** '' for none. */
  replyTo: string;
  /** The Message-ID the message answers (In-Reply-To and References), or null to start no thread. */
  thread: string | null;
  message: { step_id: number; position: number; kind: 'step' | 'follow-up' | 'click-follow-up' };
  now: Date;
};

/**
 * Hands one message of a campaign to one recipient over to the engine, in the caller's
 * transaction: the engine send and the message row (once per step, recipient and kind)
 * commit together. A recipient the engine will not send to (suppressed for the account:
 * unsubscribed, bounced, complained) is stopped instead, and null comes back; the engine
 * recorded an empty send, which finishes with nothing to do.
 */
const handOver = async (
  trx: Executor,
  platform: TPlatform,
  { campaign, accountId, recipient, subject, body, replyTo, thread, message, now }: THandOverMessage,
): Promise<{ messageId: string | null } | null> => {
  const html = withSignature(body, campaign.signature);
  const { sendId, recipients } = await createSourcedSend(trx, platform, campaign.user_id, {
    source: 'drip',
    accountId,
    fromName: campaign.sender_name,
    fromAddress: campaign.from_address,
    subject,
    html,
    ...(replyTo ? { replyTo } : {}),
    trackOpens: campaign.track_opens,
    trackClicks: campaign.track_clicks,
    recipients: [
      {
        email: recipient.email,
        name: recipient.name,
        fields: (recipient.variables as Record<string, string>) ?? {},
        ...(thread ? { headers: { 'In-Reply-To': thread, References: thread } } : {}),
      },
    ],
  });
  if (recipients === 0) {
    await trx
      .updateTable('campaign_recipients')
      .set({ state: 'stopped', stop_reason: 'suppressed' })
      .where('id', '=', recipient.id)
      .execute();
    return null;
  }
  const [outcome] = await sourcedSendOutcomes(platform, trx, campaign.user_id, sendId);
  const messageId = outcome?.messageId ?? null;
  await trx
    .insertInto('campaign_messages')
    .values({
      ...message,
      campaign_id: campaign.id,
      recipient_id: recipient.id,
      user_id: campaign.user_id,
      account_id: accountId,
      send_id: sendId,
      message_id: messageId,
      subject,
      body: html,
      created_at: now,
    })
    .execute();
  return { messageId };
};

/** One recipient's next step for one account, if its pace allows it now. */
const handOverNext = async (
  platform: TPlatform,
  accountId: number,
  campaigns: TCampaign[],
  now: Date,
): Promise<THandOver> =>
  platform.db.transaction().execute(async (trx) => {
    const locked = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(${DRIP_LOCK_CLASS}::int, (${accountId}::bigint % 2147483648)::int) as locked`.execute(
      trx,
    );
    if (!locked.rows[0]?.locked) return 'none';
    const delayMs = Math.max(...campaigns.map((campaign) => campaign.mail_per_delay)) * 1000;
    const last = await trx
      .selectFrom('campaign_messages')
      .select('created_at')
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (last && now.getTime() - last.created_at.getTime() < delayMs) return 'none';
    const timeZone = await timeZoneOf(trx, campaigns[0]!.user_id);
    const today = await sentTodayBy(
      trx,
      campaigns.map((campaign) => campaign.id),
      timeZone,
      now,
    );
    const open = campaigns.filter(
      (campaign) =>
        (today.get(campaign.id) ?? 0) < campaign.mail_per_day && isWithinWindow(now, campaign.daily_plan, timeZone),
    );
    if (open.length === 0) return 'none';
    // A step's follow-up that has come due goes before the next steps.
    const followUp = await dueFollowUp(trx, open, now);
    if (followUp) return sendFollowUp(trx, platform, accountId, followUp, now);
    const recipient = await trx
      .selectFrom('campaign_recipients')
      .selectAll()
      .where(
        'campaign_id',
        'in',
        open.map((campaign) => campaign.id),
      )
      .where('state', '=', 'active')
      .where('paused', '=', false)
      .where('due_at', '<=', now)
      .orderBy('due_at')
      .orderBy('id')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!recipient) return 'none';
    const campaign = open.find((candidate) => candidate.id === recipient.campaign_id)!;
    const steps = await trx
      .selectFrom('campaign_steps')
      .selectAll()
      .where('campaign_id', '=', campaign.id)
      .where('deleted_at', 'is', null)
      .orderBy('position')
      .execute();
    const step = steps[recipient.next_position - 1];
    if (!step) {
      await trx.updateTable('campaign_recipients').set({ state: 'done' }).where('id', '=', recipient.id).execute();
      return 'stopped';
    }
    // Verified invalid (the recipients step's verification offer, or any earlier check): a
    // message would only bounce and hurt the account's reputation.
    if (await isVerifiedInvalid(trx, campaign.user_id, recipient.email)) {
      await trx
        .updateTable('campaign_recipients')
        .set({ state: 'stopped', stop_reason: 'invalid' })
        .where('id', '=', recipient.id)
        .execute();
      return 'stopped';
    }
    const first = steps[0]!;
    const replyTo = step.reply_to || (first.global_reply ? first.reply_to : '');
    const isFollowUp = step.position > 1 && threadsWith(step.subject, recipient.thread_subject);
    const handed = await handOver(trx, platform, {
      campaign,
      accountId,
      recipient,
      subject: step.subject,
      body: step.body,
      replyTo,
      thread: isFollowUp ? recipient.thread_message_id : null,
      message: { step_id: step.id, position: step.position, kind: 'step' },
      now,
    });
    if (!handed) return 'stopped';
    const next = steps[recipient.next_position];
    await trx
      .updateTable('campaign_recipients')
      .set({
        next_position: recipient.next_position + 1,
        last_sent_at: now,
        state: next ? 'active' : 'done',
        due_at: next ? addWait(now, next.period, next.frequency, timeZone) : now,
        ...(step.position === 1 || !recipient.thread_message_id
          ? { thread_message_id: handed.messageId, thread_subject: step.subject }
          : {}),
      })
      .where('id', '=', recipient.id)
      .execute();
    return 'sent';
  });

type TFollowUpContent = { waitDays: number; subject: string; body: string; link?: string };

type TDueFollowUp = {
  kind: 'follow-up' | 'click-follow-up';
  campaign: TCampaign;
  content: TFollowUpContent;
  message: { id: number; recipient_id: number; step_id: number; position: number; message_id: string | null };
};

/** Click follow-up candidates looked at per hand-over: recipients who clicked a step with one. */
const CLICK_CANDIDATES = 50;

/**
 * The earliest follow-up that has come due among the open campaigns: a step's email not
 * opened within its follow-up's days, or the days after the recipient clicked its click
 * follow-up's link (any link when none is given). Each at most once per step and recipient;
 * none for a stopped or paused recipient.
 */
const dueFollowUp = async (trx: Executor, open: TCampaign[], now: Date): Promise<TDueFollowUp | null> => {
  const campaignIds = open.map((campaign) => campaign.id);
  const unopened = await sql<TDueFollowUp['message'] & { campaign_id: number; follow_up: TFollowUpContent }>`
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
     order by m.created_at, m.id limit 1`.execute(trx);
  const found = unopened.rows[0];
  if (found) {
    return {
      kind: 'follow-up',
      campaign: open.find((campaign) => campaign.id === Number(found.campaign_id))!,
      content: found.follow_up,
      message: found,
    };
  }
  const clicked = await sql<
    TDueFollowUp['message'] & { campaign_id: number; send_id: number; click_follow_up: TFollowUpContent }
  >`
    select m.id, m.recipient_id, m.step_id, m.position, m.message_id, m.campaign_id, m.send_id, s.click_follow_up
      from campaign_messages m
      join campaign_steps s on s.id = m.step_id
      join campaign_recipients r on r.id = m.recipient_id
     where m.campaign_id = any(${campaignIds}::bigint[]) and m.kind = 'step'
       and s.click_follow_up is not null and s.deleted_at is null and m.clicked_at is not null
       and r.state <> 'stopped' and not r.paused
       and not exists (select 1 from campaign_messages f
                        where f.step_id = m.step_id and f.recipient_id = m.recipient_id and f.kind = 'click-follow-up')
     order by m.clicked_at, m.id limit ${CLICK_CANDIDATES}`.execute(trx);
  if (clicked.rows.length === 0) return null;
  const clicks = await firstClicksOf(
    trx,
    clicked.rows.map((row) => Number(row.send_id)),
  );
  for (const row of clicked.rows) {
    const link = (row.click_follow_up.link ?? '').trim();
    const matching = clicks.filter(
      (click) =>
        click.send_id === Number(row.send_id) && (link === '' || click.url === link || click.url.startsWith(link)),
    );
    if (matching.length === 0) continue;
    const clickedAt = Math.min(...matching.map((click) => new Date(click.clicked_at).getTime()));
    if (clickedAt + row.click_follow_up.waitDays * 86_400_000 > now.getTime()) continue;
    return {
      kind: 'click-follow-up',
      campaign: open.find((campaign) => campaign.id === Number(row.campaign_id))!,
      content: row.click_follow_up,
      message: row,
    };
  }
  return null;
};

/** Hands a follow-up to the engine in the step's thread; the recipient's place in the sequence does not move. */
const sendFollowUp = async (
  trx: Executor,
  platform: TPlatform,
  accountId: number,
  due: TDueFollowUp,
  now: Date,
): Promise<THandOver> => {
  const recipient = await trx
    .selectFrom('campaign_recipients')
    .selectAll()
    .where('id', '=', due.message.recipient_id)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (!recipient) return 'none';
  const handed = await handOver(trx, platform, {
    campaign: due.campaign,
    accountId,
    recipient,
    subject: due.content.subject,
    body: due.content.body,
    replyTo: '',
    thread: due.message.message_id,
    message: { step_id: due.message.step_id, position: due.message.position, kind: due.kind },
    now,
  });
  if (!handed) return 'stopped';
  return 'sent';
};

/**
 * Learns what became of messages still open (queued, or sent without a click yet): their
 * state, opens and clicks. A permanent failure stops the recipient as bounced; an
 * unsubscribe stops it as unsubscribed.
 */
export const syncMessages = async (platform: TPlatform, limit = SYNC_PER_TICK) => {
  const open = await platform.db
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
  if (open.length === 0) return;
  await platform.db
    .updateTable('campaign_messages')
    .set({ synced_at: new Date() })
    .where(
      'id',
      'in',
      open.map((message) => message.id),
    )
    .execute();
  const outcomes = new Map(
    (
      await sourcedOutcomesOfSends(
        platform.db,
        open.map((message) => message.send_id!),
      )
    ).map((row) => [row.send_id, row]),
  );
  // Campaigns whose messages' outcomes moved: the circuit breaker judges them after.
  const moved = new Set<number>();
  for (const message of open) {
    const outcome = outcomes.get(message.send_id!);
    if (!outcome) continue;
    const status = outcome.status === 'sent' ? 'sent' : outcome.status === 'failed' ? 'failed' : 'queued';
    const unchanged =
      status === message.status &&
      Boolean(outcome.sent_at) === Boolean(message.sent_at) &&
      Boolean(outcome.delivered_at) === Boolean(message.delivered_at) &&
      Boolean(outcome.opened_at) === Boolean(message.opened_at) &&
      Boolean(outcome.clicked_at) === Boolean(message.clicked_at) &&
      Boolean(outcome.complained_at) === Boolean(message.complained_at) &&
      Boolean(outcome.unsubscribed_at) === Boolean(message.unsubscribed_at);
    if (unchanged) continue;
    moved.add(Number(message.campaign_id));
    await platform.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('campaign_messages')
        .set({
          status,
          error: outcome.error,
          sent_at: outcome.sent_at,
          delivered_at: outcome.delivered_at,
          opened_at: outcome.opened_at,
          clicked_at: outcome.clicked_at,
          complained_at: outcome.complained_at,
          unsubscribed_at: outcome.unsubscribed_at,
        })
        .where('id', '=', message.id)
        .execute();
      const stop =
        status === 'failed' ? 'bounced' : outcome.unsubscribed_at || outcome.complained_at ? 'unsubscribed' : null;
      if (stop) {
        await trx
          .updateTable('campaign_recipients')
          .set({ state: 'stopped', stop_reason: stop })
          .where('id', '=', message.recipient_id)
          .where('state', '<>', 'stopped')
          .execute();
      }
    });
  }
  await judgeCampaigns(platform, [...moved]);
};

/** One tick: outcomes first (so a bounce stops the next step), then each account's next hand-overs. */
export const tickCampaigns = async (platform: TPlatform, now = new Date(), { sync = true } = {}) => {
  if (sync) await syncMessages(platform);
  const campaigns = await runningCampaigns(platform.db, now);
  const byAccount = new Map<number, TCampaign[]>();
  for (const campaign of campaigns) {
    byAccount.set(campaign.account_id, [...(byAccount.get(campaign.account_id) ?? []), campaign]);
  }
  let handed = 0;
  for (const [accountId, accountCampaigns] of byAccount) {
    for (let count = 0; count < MAX_PER_ACCOUNT_PER_TICK; count++) {
      const outcome = await handOverNext(platform, accountId, accountCampaigns, now);
      if (outcome === 'sent') handed += 1;
      if (outcome === 'none') break;
    }
  }
  return handed;
};
