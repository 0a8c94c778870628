import {
  addWait,
  isWithinWindow,
  type TCampaignMessageKind,
  type TDailyPlan,
  withSignature,
} from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { timeZoneOf } from '../auth/auth.service';
import {
  createSourcedSend,
  firstClicksOf,
  judgeBreakerGroups,
  sourcedOutcomesOfSends,
  sourcedSendOutcomes,
} from '../delivery/delivery.service';
import { isVerifiedInvalid } from '../verification/verification.service';
import { campaignBreakerGroup } from './campaign-breaker.service';
import {
  claimDueRecipient,
  claimRecipient,
  clickedWithClickStep,
  handedOverToday,
  insertMessage,
  lastHandOverAt,
  listSteps,
  oldestUnopenedDue,
  runningCampaigns,
  stopRecipient,
  type TConditionalStepContent,
  takeOpenMessages,
  tryLockAccount,
  updateMessage,
  updateRecipient,
} from './campaigns.repository';

/**
 * The campaigns' scheduler: each tick learns what became of recent messages (sent, failed,
 * opened, clicked; a bounce or an unsubscribe stops the recipient), then, per sending
 * account, hands the engine the next due step of one recipient when the account's pace
 * allows it: at least the campaigns' mail-per-delay seconds since its last campaign message, under
 * each campaign's mail per day, inside the campaign's weekday windows in the user's time
 * zone. A hand-over is one transaction: the engine send, the message row (once per step and
 * recipient), and the recipient's next step and due time commit together or not at all.
 */

/** Keeps the advisory locks of campaigns' accounts apart from others (the account id second). */
const CAMPAIGN_LOCK_CLASS = 0x0d12_1b00;
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
  message: { step_id: number; position: number; kind: TCampaignMessageKind };
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
    // Judged with the campaign's other messages by the engine's one breaker.
    breakerGroup: campaignBreakerGroup(campaign.id),
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
    await updateRecipient(trx, recipient.id, { state: 'stopped', stop_reason: 'suppressed' });
    return null;
  }
  const [outcome] = await sourcedSendOutcomes(platform, trx, campaign.user_id, sendId);
  const messageId = outcome?.messageId ?? null;
  await insertMessage(trx, {
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
  });
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
    if (!(await tryLockAccount(trx, CAMPAIGN_LOCK_CLASS, accountId))) return 'none';
    const delayMs = Math.max(...campaigns.map((campaign) => campaign.mail_per_delay)) * 1000;
    const last = await lastHandOverAt(trx, accountId);
    if (last && now.getTime() - last.getTime() < delayMs) return 'none';
    const timeZone = await timeZoneOf(trx, campaigns[0]!.user_id);
    const today = await handedOverToday(
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
    // A step's unopened or click step that has come due goes before the next steps.
    const due = await dueConditionalStep(trx, open, now);
    if (due) return sendConditionalStep(trx, platform, accountId, due, now);
    const recipient = await claimDueRecipient(
      trx,
      open.map((campaign) => campaign.id),
      now,
    );
    if (!recipient) return 'none';
    const campaign = open.find((candidate) => candidate.id === recipient.campaign_id)!;
    const steps = await listSteps(trx, campaign.id);
    const step = steps[recipient.next_position - 1];
    if (!step) {
      await updateRecipient(trx, recipient.id, { state: 'done' });
      return 'stopped';
    }
    // Verified invalid (the recipients step's verification offer, or any earlier check): a
    // message would only bounce and hurt the account's reputation.
    if (await isVerifiedInvalid(trx, campaign.user_id, recipient.email)) {
      await updateRecipient(trx, recipient.id, { state: 'stopped', stop_reason: 'invalid' });
      return 'stopped';
    }
    const first = steps[0]!;
    const replyTo = step.reply_to || (first.global_reply ? first.reply_to : '');
    const isInThread = step.position > 1 && threadsWith(step.subject, recipient.thread_subject);
    const handed = await handOver(trx, platform, {
      campaign,
      accountId,
      recipient,
      subject: step.subject,
      body: step.body,
      replyTo,
      thread: isInThread ? recipient.thread_message_id : null,
      message: { step_id: step.id, position: step.position, kind: 'step' },
      now,
    });
    if (!handed) return 'stopped';
    const next = steps[recipient.next_position];
    await updateRecipient(trx, recipient.id, {
      next_position: recipient.next_position + 1,
      last_sent_at: now,
      state: next ? 'active' : 'done',
      due_at: next ? addWait(now, next.period, next.frequency, timeZone) : now,
      ...(step.position === 1 || !recipient.thread_message_id
        ? { thread_message_id: handed.messageId, thread_subject: step.subject }
        : {}),
    });
    return 'sent';
  });

type TDueConditionalStep = {
  kind: Exclude<TCampaignMessageKind, 'step'>;
  campaign: TCampaign;
  content: TConditionalStepContent;
  message: { id: number; recipient_id: number; step_id: number; position: number; message_id: string | null };
};

/** Click step candidates looked at per hand-over: recipients who clicked a step with one. */
const CLICK_CANDIDATES = 50;

/**
 * The earliest unopened or click step that has come due among the open campaigns: a step's
 * email not opened within its unopened step's days, or the days after the recipient clicked
 * its click step's link (any link when none is given). Each at most once per step and
 * recipient; none for a stopped or paused recipient.
 */
const dueConditionalStep = async (trx: Executor, open: TCampaign[], now: Date): Promise<TDueConditionalStep | null> => {
  const campaignIds = open.map((campaign) => campaign.id);
  const found = await oldestUnopenedDue(trx, campaignIds, now);
  if (found) {
    return {
      kind: 'follow-up',
      campaign: open.find((campaign) => campaign.id === Number(found.campaign_id))!,
      content: found.follow_up,
      message: found,
    };
  }
  const clicked = await clickedWithClickStep(trx, campaignIds, CLICK_CANDIDATES);
  if (clicked.length === 0) return null;
  const clicks = await firstClicksOf(
    trx,
    clicked.map((row) => Number(row.send_id)),
  );
  for (const row of clicked) {
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

/** Hands an unopened or a click step to the engine in its step's thread; the recipient's place in the sequence does not move. */
const sendConditionalStep = async (
  trx: Executor,
  platform: TPlatform,
  accountId: number,
  due: TDueConditionalStep,
  now: Date,
): Promise<THandOver> => {
  const recipient = await claimRecipient(trx, due.message.recipient_id);
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
  const open = await takeOpenMessages(platform.db, limit);
  if (open.length === 0) return;
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
      await updateMessage(trx, message.id, {
        status,
        error: outcome.error,
        sent_at: outcome.sent_at,
        delivered_at: outcome.delivered_at,
        opened_at: outcome.opened_at,
        clicked_at: outcome.clicked_at,
        complained_at: outcome.complained_at,
        unsubscribed_at: outcome.unsubscribed_at,
      });
      const stop =
        status === 'failed' ? 'bounced' : outcome.unsubscribed_at || outcome.complained_at ? 'unsubscribed' : null;
      if (stop) await stopRecipient(trx, message.recipient_id, stop);
    });
  }
  await platform.db
    .transaction()
    .execute((trx) => judgeBreakerGroups(platform, trx, [...moved].map(campaignBreakerGroup)));
};

/** One tick: outcomes first (so a bounce stops the next step), then each account's next hand-overs. */
export const tickCampaigns = async (platform: TPlatform, now = new Date(), { sync = true } = {}) => {
  if (sync) await syncMessages(platform);
  const campaigns = (await runningCampaigns(platform.db, now)) as TCampaign[];
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
