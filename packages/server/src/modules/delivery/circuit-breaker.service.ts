import { breakerReason, breakerVerdict, CIRCUIT_BREAKER } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { emitEvents } from '../../platform/outbound-events';
import { publishToUser } from '../../platform/realtime';
import { findAccountRow } from '../accounts/accounts.service';
import { findUserProfile } from '../auth/auth.service';
import { notifyUser } from '../notifications/notifications.service';
import { breakerEmailJob } from './circuit-breaker.jobs';
import { findSend, tripBreakerGroup, tripSendBreaker } from './send-lifecycle';
import {
  countHandedOver,
  findBreakerFigures,
  findGroupFigures,
  findGroupsOfSends,
  progressEventOf,
} from './send-reads';

/**
 * The circuit breaker (issue 31 §2, rule in contracts `sending/circuit-breaker.ts`): a send
 * of Send Email, or a scheduled one, whose hard bounces or complaints pass its account's line
 * after 200 messages pauses itself once, and its user is told three ways: a notification, the
 * progress event (the card shows why, with the live figures beside it) and an email. The user
 * resumes or cancels as after any pause; a resumed send is judged again on the messages after
 * the resume alone (`breaker_judged_from`; the card says so): the user chose to go on with the
 * figures before, and a fresh run of bounces after it pauses it again.
 *
 * Fed by both sides of a message's life: every intake (Mailgun's events, bounce reports,
 * feedback loops) through `applyOutcomes`, and dispatch after each claim (refusals at
 * handover are hard bounces too). A drip step is a send of one recipient in its campaign's
 * breaker group: the group is judged as one (`judgeBreakerGroups`), by the same rule.
 */

/**
 * Judges these sends in the caller's transaction and pauses those past a line: the pause, the
 * notification, its email job and the progress event all commit with the caller's work (the
 * event that tripped it), or not at all. Dispatch sees the pause within its status watch
 * (100 ms) and starts no message after it. Answers the ids it paused.
 */
export const judgeSends = async (platform: TPlatform, trx: Executor, sendIds: number[]) => {
  const tripped: number[] = [];
  // Sends judged together (a drip campaign's messages) are judged as their group.
  await judgeBreakerGroups(platform, trx, await findGroupsOfSends(trx, [...new Set(sendIds)]));
  for (const figures of await findBreakerFigures(trx, [...new Set(sendIds)])) {
    const lines = await linesOf(trx, figures.user_id, figures.account_id);
    if (!lines) continue;
    // The counters lag the claims in progress: they count fewer messages than went, so a
    // share from them is at most too high. Only then are the messages counted exactly.
    const counted = { hardBounces: figures.hard_bounces, complaints: figures.complaints };
    if (!breakerVerdict({ ...counted, attempts: Math.max(figures.attempts, CIRCUIT_BREAKER.minAttempts) }, lines)) {
      continue;
    }
    // Since a resume the figures are exact already (counted from its events).
    const attempts = figures.judged_from ? figures.attempts : await countHandedOver(trx, figures.id);
    const verdict = breakerVerdict({ ...counted, attempts }, lines);
    if (!verdict) continue;
    const reason = breakerReason(verdict, figures.judged_from ? 'resume' : 'start');
    if (!(await tripSendBreaker(trx, figures.id, reason))) continue;
    tripped.push(figures.id);
    await tellUser(platform, trx, figures.id, reason);
  }
  return tripped;
};

/** An account's breaker lines (its own, issue 31), or null when the account is gone. */
const linesOf = async (db: Executor, userId: number, accountId: number) => {
  const account = await findAccountRow(db, userId, accountId);
  return account
    ? { bouncePercent: account.breaker_bounce_percent, complaintPercent: account.breaker_complaint_percent }
    : null;
};

/**
 * Judges breaker groups (a drip campaign's messages, each a send of one recipient) in the
 * caller's transaction by the same rule as a send: after 200 messages, a share of hard
 * bounces or complaints past the account's line trips the group, once; its owner (the
 * module that registered `breakerGroupTripped`: campaigns) stops what feeds it and tells its
 * user, in the same transaction. Started again (`resumeBreakerGroup`), a group is judged on
 * the sends made since. Answers the keys it tripped.
 */
export const judgeBreakerGroups = async (platform: TPlatform, trx: Executor, keys: string[]) => {
  const tripped: string[] = [];
  for (const figures of await findGroupFigures(trx, [...new Set(keys)])) {
    const lines = await linesOf(trx, figures.user_id, figures.account_id);
    if (!lines) continue;
    const verdict = breakerVerdict(
      { attempts: figures.attempts, hardBounces: figures.hard_bounces, complaints: figures.complaints },
      lines,
    );
    if (!verdict) continue;
    const reason = breakerReason(verdict, figures.judged_from ? 'resume' : 'start');
    if (!(await tripBreakerGroup(trx, figures.key, reason))) continue;
    tripped.push(figures.key);
    for (const stop of platform.hooks.breakerGroupTripped) {
      await stop(platform, trx, { key: figures.key, userId: figures.user_id, reason });
    }
  }
  return tripped;
};

const tellUser = async (platform: TPlatform, trx: Executor, sendId: number, reason: string) => {
  const send = (await findSend(trx, sendId))!;
  const link = send.account_id === null ? '/history' : `/history/details/${send.account_id}/${send.id}`;
  await notifyUser(
    platform,
    { userId: send.user_id, title: `Your email “${send.subject}” was paused`, body: reason, link },
    trx,
  );
  await platform.queue.enqueue(breakerEmailJob, { sendId }, { executor: trx, singletonKey: `breaker-${sendId}` });
  // Webhooks out (issue 48 §3): `send.paused`, in the transaction of the pause.
  await emitEvents(platform, trx, [
    {
      userId: send.user_id,
      type: 'send.paused',
      orderingKey: `send:${send.id}`,
      data: { send_id: send.id, subject: send.subject, reason },
    },
  ]);
  const progress = await progressEventOf(trx, sendId);
  if (progress) await publishToUser(trx, progress.userId, 'SendProgressEvent', progress.payload);
};

/** The email the user gets when the breaker paused a send (queued with the pause). */
export const mailBreakerTripped = async (platform: TPlatform, sendId: number, appUrl: string) => {
  const send = await findSend(platform.db, sendId);
  if (!send?.breaker_reason) return;
  const user = await findUserProfile(platform.db, send.user_id);
  const link = `${appUrl}/history/details/${send.account_id}/${send.id}`;
  await platform.mailer.send({
    to: user.email,
    subject: `Your email “${send.subject}” was paused`,
    text: [
      `Hello ${user.name},`,
      '',
      `Sendwell paused your email “${send.subject}”.`,
      '',
      send.breaker_reason,
      '',
      `Nothing more goes out until you resume it. Resume or cancel it here: ${link}`,
      '',
      "The limits are your sending account's: you can change them in the account's settings.",
    ].join('\n'),
  });
};
