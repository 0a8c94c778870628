// About 680 lines on purpose: the engine's one door for other modules (module-boundaries lets
// them import only `*.service.ts`): every way a send is created, changed and read from
// outside. What runs behind it has files of its own (`README.md`).
import {
  canonicalEmail,
  SEND_MESSAGES,
  type TSendContent,
  type TSendProgress,
  ZSendContent,
} from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { TSendSource, TSendStatus } from '../../platform/db-schema';
import { DomainError, HttpError, isDomainError, notFound, ValidationError } from '../../platform/errors';
import { requireAccountRow, requireAccountsAllowed } from '../accounts/accounts.service';
import { findListsByIds, type TListUsageCheck } from '../lists/lists.service';
import { countEngagedRecipients, insertGivenRecipients } from './audience';
import { dispatchSendJob, snapshotSendJob } from './delivery.jobs';
import { PLAN_WITHOUT_ACCOUNTS, publishProgress } from './dispatch';
import { messageIdOf } from './message';
import { requeueUnknown } from './outcomes';
import { isRefOf, parseRef, type TRefPurpose } from './recipient-refs';
import {
  ensureBreakerGroup,
  findSend,
  findUserSendStatus,
  insertSend,
  makeSplitLead,
  moveSendStatus,
  releaseHeldSend as releaseHeldSendRow,
  resumeAfterBreaker,
  type TScheduledSettings,
  updateScheduled as updateScheduledRow,
} from './send-lifecycle';
import {
  breakerStateOf,
  countWaiting,
  findLinkClicks,
  findRecipientForPage,
  findRecipientOutcomes,
  findRecipientsByIdsOrTokens,
  findScheduledSendsOfList,
  findSendLinks,
  findUserSendRow,
  type TEventRecipient,
} from './send-reads';
import { clickUrlParts, isTrackingSignature } from './tracking-links';

export type TNewSend = {
  accountId: number;
  fromName: string;
  fromAddress: string;
  subject: string;
  html: string;
  listIds: number[];
  replyTo?: string;
  cc?: string;
  bcc?: string;
  deliverAt?: Date | null;
  trackOpens?: boolean;
  trackClicks?: boolean;
  /** The builder's document beside the HTML (issue 46): stored for editing again, never read by the engine. */
  document?: unknown | null;
};

/**
 * The one check every path that creates or changes a send goes through (R42): Send Email
 * and its A/B parts, Edit Scheduled Email by either route, Send again, the re-send by
 * engagement, drip steps and spam tests, the API. The content is read by the schema the
 * forms use (`ZSendContent`: subject, bounded HTML, copies and Reply-To in their stored form,
 * a sender without line breaks), so a path that skips a form (or a row written before the
 * rules) is refused with the same words, or normalised the same way, before anything is stored.
 */
export const checkedContent = (
  input: { subject: string; html: string; cc?: string; bcc?: string; replyTo?: string },
  sender: { fromName: string; fromAddress: string },
): TSendContent & { fromName: string; fromAddress: string } => {
  const parsed = ZSendContent.safeParse(input);
  const fromAddress = canonicalEmail(sender.fromAddress);
  const errors: Record<string, string[]> = {};
  for (const issue of parsed.error?.issues ?? []) {
    const field = String(issue.path[0] ?? '_');
    errors[field] = [...(errors[field] ?? []), issue.message];
  }
  if (/[\r\n]/.test(sender.fromName)) errors.fromName = [SEND_MESSAGES.lineBreak];
  if (fromAddress === null) errors.fromAddress = [`Not an email address: ${JSON.stringify(sender.fromAddress)}.`];
  if (!parsed.success || Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { ...parsed.data, fromName: sender.fromName.trim(), fromAddress: fromAddress! };
};

/** The account of a new send, the user's own, and the plan allowing it to send (R23). */
const sendingAccountOf = async (platform: TPlatform, executor: Executor, userId: number, accountId: number) => {
  const account = await requireAccountRow(executor, userId, accountId);
  await requireAccountsAllowed(platform, executor, userId, account.driver).catch((error: unknown) => {
    throw isDomainError(error, 'upgrade-required') ? new DomainError('upgrade-required', PLAN_WITHOUT_ACCOUNTS) : error;
  });
  return account;
};

/** The account and lists of a new send, the user's own, and the plan allowing the account. */
const sendableOf = async (platform: TPlatform, userId: number, input: Pick<TNewSend, 'accountId' | 'listIds'>) => {
  const account = await sendingAccountOf(platform, platform.db, userId, input.accountId);
  const lists = await findListsByIds(platform.db, userId, input.listIds);
  if (lists.length !== new Set(input.listIds).size) throw notFound('One of these mailing lists does not exist.');
  return { account, lists };
};

/** A send row's content columns, from content read by the one check (`checkedContent`). */
const contentColumnsOf = (content: ReturnType<typeof checkedContent>) => ({
  from_name: content.fromName,
  from_address: content.fromAddress,
  subject: content.subject,
  html: content.html,
  reply_to: content.replyTo,
  cc: content.cc,
  bcc: content.bcc,
});

/** The columns every new send row takes from the form, whether sent alone or as part of a split send (its own subject aside). */
const sendColumnsOf = (
  userId: number,
  { account, lists }: Awaited<ReturnType<typeof sendableOf>>,
  content: ReturnType<typeof checkedContent>,
  input: Pick<TNewSend, 'trackOpens' | 'trackClicks' | 'document'>,
) => ({
  user_id: userId,
  account_id: account.id,
  ...contentColumnsOf(content),
  list_ids: lists.map((list) => list.id),
  list_names: lists.map((list) => list.name).join(', '),
  track_opens: input.trackOpens ?? true,
  track_clicks: input.trackClicks ?? true,
  document: input.document ?? null,
});

/** A new send's snapshot job, queued in the transaction that records the send (a rollback takes both). */
const queueSnapshot = (platform: TPlatform, trx: Executor, sendId: number) =>
  platform.queue.enqueue(snapshotSendJob, { sendId }, { executor: trx, singletonKey: `snapshot-${sendId}` });

/**
 * Records a send and queues its snapshot in the same transaction, so a send exists only
 * with its job. Lists and account must be the user's own.
 */
export const createSend = async (platform: TPlatform, userId: number, input: TNewSend) => {
  const content = checkedContent(input, input);
  const sendable = await sendableOf(platform, userId, input);
  const isScheduled = Boolean(input.deliverAt && input.deliverAt.getTime() > Date.now());
  return platform.db.transaction().execute(async (trx) => {
    const sendId = await insertSend(trx, {
      ...sendColumnsOf(userId, sendable, content, input),
      type: isScheduled ? 2 : 1,
      status: isScheduled ? 'scheduled' : 'queued',
      deliver_at: isScheduled ? input.deliverAt! : null,
    });
    if (!isScheduled) await queueSnapshot(platform, trx, sendId);
    return sendId;
  });
};

export type TSplitParts = { leadId: number; testIds: number[]; restId: number };

/**
 * A split send (an A/B subject test, issue 31 §4): one send per subject and one for the rest,
 * recorded together. The lead (the first subject) is queued for its snapshot, which takes the
 * audience once and deals it out to every part (`insertSplitAudience`); the other parts are
 * `held` until then, and the rest after it until `releaseHeldSend` gives it a subject.
 * `onCreated` runs in the same transaction (the A/B test's own row and its decision job), so
 * the parts exist only with it. Sent now: a split send is never scheduled.
 */
export const createSplitSend = async (
  platform: TPlatform,
  userId: number,
  input: Omit<TNewSend, 'deliverAt' | 'subject'> & { subjects: string[]; testPercent: number },
  onCreated: (trx: Executor, parts: TSplitParts) => Promise<void>,
) => {
  // Each part's subject is checked as the one subject of a send is.
  const [content, ...others] = input.subjects.map((subject) => checkedContent({ ...input, subject }, input));
  const subjects = [content!, ...others].map((part) => part.subject);
  const sendable = await sendableOf(platform, userId, input);
  return platform.db.transaction().execute(async (trx) => {
    const insertPart = (subject: string, part: number, splitGroup: number | null) =>
      insertSend(trx, {
        ...sendColumnsOf(userId, sendable, content!, input),
        type: 1,
        status: part === 1 ? 'queued' : 'held',
        subject,
        split_group: splitGroup,
        split_part: splitGroup === null ? null : part,
        split_test_percent: input.testPercent,
      });
    const leadId = await insertPart(subjects[0]!, 1, null);
    await makeSplitLead(trx, leadId);
    const testIds = [leadId];
    for (const [index, subject] of subjects.slice(1).entries()) {
      testIds.push(await insertPart(subject, index + 2, leadId));
    }
    // The rest carries subject A until the decision gives it the winner's.
    const restId = await insertPart(subjects[0]!, 0, leadId);
    await queueSnapshot(platform, trx, leadId);
    await onCreated(trx, { leadId, testIds, restId });
    return leadId;
  });
};

/**
 * An A/B test's decision: the held rest goes out with the winning subject, its dispatch queued
 * in the caller's transaction. Only once (from `held`); answers whether this call let it go.
 */
export const releaseHeldSend = async (trx: Executor, platform: TPlatform, sendId: number, subject: string) => {
  const released = await releaseHeldSendRow(trx, sendId, subject);
  if (released)
    await platform.queue.enqueue(dispatchSendJob, { sendId }, { executor: trx, singletonKey: `send-${sendId}` });
  return released;
};

/**
 * Re-send by engagement (issue 31 §3): how many of a previous send's recipients the new send
 * would reach, and its tracked links with their clicks. Only the user's own sends.
 */
export const engagementCount = async (
  platform: TPlatform,
  userId: number,
  sendId: number,
  audience: 'not-opened' | 'opened' | 'clicked',
  linkId: number | null,
) => {
  const previous = await findSend(platform.db, sendId);
  if (previous?.user_id !== userId || previous.source !== 'lists') throw notFound('This send does not exist.');
  const [count, links] = await Promise.all([
    countEngagedRecipients(
      platform.db,
      { id: previous.id, user_id: userId, list_ids: previous.list_ids.map(Number) },
      audience,
      linkId,
    ),
    findLinkClicks(platform.db, sendId),
  ]);
  return { count, links, trackedOpens: previous.track_opens, trackedClicks: previous.track_clicks };
};

/**
 * A new send (Send Email's kind) of a previous one's message, to its recipients who did (or
 * did not) engage, taken at its snapshot by the same rule the count reads; then everything a
 * send gets: the exactly-once engine, suppressions at the snapshot, History, the breaker.
 * Only a finished (or cancelled) send of the user's own, which can no longer change whom it reached.
 */
export const createEngagementResend = async (
  platform: TPlatform,
  userId: number,
  sendId: number,
  input: { audience: 'not-opened' | 'opened' | 'clicked'; linkId: number | null; subject?: string },
) => {
  const previous = await findSend(platform.db, sendId);
  if (previous?.user_id !== userId || previous.source !== 'lists') throw notFound('This send does not exist.');
  if (!['finished', 'cancelled'].includes(previous.status)) {
    throw new HttpError(409, 'This send has not finished yet: send to its recipients again once it has.', 'SEND_STATE');
  }
  if (previous.account_id === null) throw notFound('This send’s sending account no longer exists.');
  const content = checkedContent(
    { subject: input.subject || previous.subject, html: previous.html, replyTo: previous.reply_to },
    { fromName: previous.from_name, fromAddress: previous.from_address },
  );
  const account = await sendingAccountOf(platform, platform.db, userId, previous.account_id).catch((error: unknown) => {
    throw error instanceof HttpError && error.statusCode === 404
      ? notFound('This send’s sending account no longer exists.')
      : error;
  });
  return platform.db.transaction().execute(async (trx) => {
    const resendId = await insertSend(trx, {
      user_id: userId,
      account_id: account.id,
      type: 1,
      status: 'queued',
      ...contentColumnsOf(content),
      list_ids: previous.list_ids,
      list_names: previous.list_names,
      track_opens: previous.track_opens,
      track_clicks: previous.track_clicks,
      resend_of: previous.id,
      resend_audience: input.audience,
      resend_link_id: input.linkId,
    });
    await queueSnapshot(platform, trx, resendId);
    return resendId;
  });
};

/** A recipient a source gives the engine: merge fields, and headers for its message alone. */
export type TSourcedRecipient = {
  email: string;
  name?: string;
  fields?: Record<string, string>;
  /** e.g. In-Reply-To and References, so a drip follow-up stays in its thread. */
  headers?: Record<string, string>;
};

export type TSourcedSend = {
  source: Exclude<TSendSource, 'lists'>;
  accountId: number;
  fromName: string;
  fromAddress: string;
  subject: string;
  html: string;
  replyTo?: string;
  trackOpens?: boolean;
  trackClicks?: boolean;
  recipients: TSourcedRecipient[];
  /** The breaker group the send is judged in with its siblings (a drip campaign's messages: `campaign:<id>`). */
  breakerGroup?: string;
};

/** Headers the engine writes itself; a source may not set them. */
const ENGINE_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'message-id',
  'date',
  'sender',
  'return-path',
  'content-type',
  'content-transfer-encoding',
  'mime-version',
  'list-unsubscribe',
  'list-unsubscribe-post',
]);

const checkHeaders = (headers: Record<string, string> | undefined) => {
  if (!headers || Object.keys(headers).length === 0) return null;
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(name) || ENGINE_HEADERS.has(name.toLowerCase())) {
      throw new HttpError(422, `A source may not set the header ${JSON.stringify(name)}.`, 'INVALID_HEADER');
    }
    if (/[\r\n]/.test(value)) throw new HttpError(422, `The header ${name} holds a line break.`, 'INVALID_HEADER');
  }
  return headers;
};

/**
 * A send whose source gives its recipients now (a drip step, a spam test), recorded in the
 * caller's transaction with those recipients (suppressed addresses left out) and its
 * snapshot job: the caller's own rows (which recipient got which step) commit with it or
 * not at all. The account must be the user's and allowed to send. Everything after is the
 * engine every send goes through (claim, transport, settle; `README.md`).
 */
export const createSourcedSend = async (
  trx: Executor,
  platform: TPlatform,
  userId: number,
  input: TSourcedSend,
): Promise<{ sendId: number; recipients: number }> => {
  const content = checkedContent(input, input);
  const account = await sendingAccountOf(platform, trx, userId, input.accountId);
  const recipients = input.recipients.map((recipient) => {
    const email = canonicalEmail(recipient.email);
    if (!email) throw new HttpError(422, `Not an email address: ${JSON.stringify(recipient.email)}.`, 'INVALID_EMAIL');
    return {
      email,
      name: recipient.name ?? '',
      fields: recipient.fields ?? {},
      headers: checkHeaders(recipient.headers),
    };
  });
  const sendId = await insertSend(trx, {
    user_id: userId,
    account_id: account.id,
    type: 1,
    source: input.source,
    status: 'queued',
    ...contentColumnsOf(content),
    list_ids: [],
    track_opens: input.trackOpens ?? true,
    track_clicks: input.trackClicks ?? true,
    breaker_group: input.breakerGroup ?? null,
  });
  if (input.breakerGroup) {
    await ensureBreakerGroup(trx, { key: input.breakerGroup, userId, accountId: account.id });
  }
  const kept = await insertGivenRecipients(trx, { id: sendId, user_id: userId }, recipients);
  await queueSnapshot(platform, trx, sendId);
  return { sendId, recipients: kept };
};

/**
 * Changes a scheduled send not yet started (Edit Scheduled Email, by either route): its
 * content through the one check (`checkedContent`), the rest as given by the caller, who
 * checked the account and lists. Answers whether it was still pending and is now changed.
 */
export const changeScheduledSend = async (
  db: Executor,
  userId: number,
  id: number,
  changes: {
    subject: string;
    html: string;
    cc: string;
    bcc: string;
    replyTo: string;
    deliverAt: Date;
    sender: { fromName: string; fromAddress: string };
  } & TScheduledSettings,
) => {
  const { subject, html, cc, bcc, replyTo, deliverAt, sender, ...rest } = changes;
  const content = checkedContent({ subject, html, cc, bcc, replyTo }, sender);
  return updateScheduledRow(db, userId, id, {
    ...rest,
    ...contentColumnsOf(content),
    deliver_at: deliverAt,
  });
};

/**
 * What became of each recipient of a send: its state, when it was sent, opened and
 * clicked, and the Message-ID its message carried (a follow-up's In-Reply-To). Only the
 * user's own sends; an empty list for any other.
 */
export const sourcedSendOutcomes = async (platform: TPlatform, db: Executor, userId: number, sendId: number) =>
  (await findRecipientOutcomes(db, userId, sendId)).map((row) => ({
    email: row.email,
    status: row.status,
    messageId: messageIdOf(platform, row, { id: Number(row.id), token: row.token }),
    sentAt: row.sent_at,
    error: row.error,
    openedAt: row.opened_at,
    clickedAt: row.clicked_at,
  }));

const changeStatus = async (
  platform: TPlatform,
  userId: number,
  sendId: number,
  from: TSendStatus[],
  to: 'paused' | 'sending' | 'cancelled',
) => {
  const changed = await platform.db.transaction().execute(async (trx) => {
    const isMoved = await moveSendStatus(trx, userId, sendId, from, to);
    if (isMoved && to === 'sending') {
      await resumeAfterBreaker(trx, sendId);
      await platform.queue.enqueue(dispatchSendJob, { sendId }, { executor: trx });
    }
    return isMoved;
  });
  if (changed) await publishProgress(platform, sendId, { force: true });
  if (!changed) {
    const exists = await findUserSendStatus(platform.db, userId, sendId);
    if (!exists) throw notFound('This send does not exist.');
    throw new HttpError(409, `This send is ${exists.status}.`, 'SEND_STATE');
  }
};

/** A running send stops after the message each connection is writing; nothing is lost. */
export const pauseSend = (platform: TPlatform, userId: number, sendId: number) =>
  changeStatus(platform, userId, sendId, ['sending'], 'paused');
export const resumeSend = (platform: TPlatform, userId: number, sendId: number) =>
  changeStatus(platform, userId, sendId, ['paused'], 'sending');
export const cancelSend = (platform: TPlatform, userId: number, sendId: number) =>
  changeStatus(
    platform,
    userId,
    sendId,
    // A held part (an A/B test's rest) may be cancelled before the decision lets it go.
    ['scheduled', 'queued', 'snapshotting', 'sending', 'paused', 'held'],
    'cancelled',
  );

/**
 * Sends again, on the user's word, to the recipients whose message may or may not have
 * left (`unknown`: the answer never came, or a worker died while handing it over). They
 * go back to pending, and a finished send runs again for them. Answers how many.
 */
export const resendUnknown = async (platform: TPlatform, userId: number, sendId: number) => {
  const count = await platform.db.transaction().execute(async (trx) => {
    const send = await findUserSendStatus(trx, userId, sendId, { lock: true });
    if (!send) throw notFound('This send does not exist.');
    if (!['finished', 'sending', 'paused'].includes(send.status)) {
      throw new HttpError(409, `This send is ${send.status}.`, 'SEND_STATE');
    }
    const resent = await requeueUnknown(trx, sendId);
    if (resent > 0) await platform.queue.enqueue(dispatchSendJob, { sendId }, { executor: trx });
    return resent;
  });
  await publishProgress(platform, sendId, { force: true });
  return count;
};

/**
 * A scheduled send that has not gone out uses its lists: the lists module asks this (the
 * module's `listUsageCheck`) before a list is deleted.
 */
export const scheduledListUsage: TListUsageCheck = async (db, userId, listId) =>
  (await findScheduledSendsOfList(db, userId, listId)).map((row) => ({
    type: 'scheduled' as const,
    id: row.id,
    name: row.subject,
  }));

/** `GET /api/email/sends/{id}`: one of the user's sends with its progress. */
export const sendProgress = async (platform: TPlatform, userId: number, sendId: number): Promise<TSendProgress> => {
  const send = await findUserSendRow(platform.db, userId, sendId);
  if (!send) throw notFound('This send does not exist.');
  const waiting = await countWaiting(platform.db, sendId);
  const iso = (value: Date | null) => value?.toISOString() ?? null;
  return {
    id: send.id,
    status: send.status,
    subject: send.subject,
    from: send.from_name ? `${send.from_name} <${send.from_address}>` : send.from_address,
    to: send.list_names,
    recipients_count: send.recipients_count,
    sent_count: send.sent_count,
    failed_count: send.failed_count,
    unknown_count: send.unknown_count,
    waiting_count: waiting,
    delivered_count: send.delivered_count,
    opened_count: send.opened_count,
    clicked_count: send.clicked_count,
    complained_count: send.complained_count,
    unsubscribed_count: send.unsubscribed_count,
    note: send.note ?? send.error,
    breaker_reason: send.breaker_reason,
    breaker: await breakerStateOf(platform.db, send),
    deliver_at: iso(send.deliver_at),
    started_at: iso(send.started_at),
    finished_at: iso(send.finished_at),
    created_at: send.created_at.toISOString(),
  };
};

/**
 * The recipients these references name, in the order given (undefined where none, or where
 * the reference is not this purpose's: a Message-ID reference opens no unsubscribe). Each is
 * one index read: a row id and a MAC checked here, or an older message's token (R34,
 * `recipient-refs.ts`). With `accountIds`, only a send of that account counts for each.
 * The row's secret token comes with it, for signatures bound to it (a tracked link's).
 */
export const findRecipientsByRefs = async (
  platform: TPlatform,
  db: Executor,
  purpose: TRefPurpose,
  refs: (string | null)[],
  accountIds?: number[],
): Promise<((TEventRecipient & { token: string }) | undefined)[]> => {
  const parsed = refs.map((ref) => (ref ? parseRef(ref) : null));
  const rows = await findRecipientsByIdsOrTokens(
    db,
    parsed.map((ref, index) => ({
      id: ref?.kind === 'id' ? ref.id : null,
      token: ref?.kind === 'token' ? ref.token : null,
      accountId: accountIds?.[index] ?? null,
    })),
  );
  const found: ((TEventRecipient & { token: string }) | undefined)[] = refs.map(() => undefined);
  for (const { position, ...recipient } of rows) {
    const ref = parsed[position - 1];
    if (ref && isRefOf(platform.secrets.signingKey, purpose, ref, recipient.token)) found[position - 1] = recipient;
  }
  return found;
};

type TClick = { trackingRef: string; linkId: number; sig: string };

/**
 * The recipient and stored link each click-tracking address names, when its signature is the
 * one Sendwell gave that recipient's link (R16) and the link is a web address of that
 * recipient's send; null otherwise. Two statements however many clicks: the recipients, then
 * the links. Nothing is recorded: the click route records the click, the spam test only reads.
 */
const findTrackedLinks = async (platform: TPlatform, clicks: TClick[]) => {
  const recipients = await findRecipientsByRefs(
    platform,
    platform.db,
    'tracking',
    clicks.map((click) => click.trackingRef),
  );
  const signed = clicks.map((click, index) => {
    const recipient = recipients[index];
    return recipient && isTrackingSignature(platform, recipient.token, click.linkId, click.sig) ? recipient : null;
  });
  const links = new Map(
    (
      await findSendLinks(
        platform.db,
        clicks.flatMap((click, index) => (signed[index] ? [click.linkId] : [])),
      )
    ).map((link) => [link.id, link]),
  );
  return clicks.map((click, index) => {
    const recipient = signed[index];
    const link = links.get(click.linkId);
    if (!recipient || !link || link.send_id !== recipient.send_id || !/^https?:\/\//i.test(link.url)) return null;
    return { recipient, link };
  });
};

/** One click-tracking address's recipient and stored link (`findTrackedLinks`); null when it names none. */
export const findTrackedLink = async (platform: TPlatform, trackingRef: string, linkId: number, sig: string) =>
  (await findTrackedLinks(platform, [{ trackingRef, linkId, sig }]))[0] ?? null;

/** How many tracked links of one message are looked up at most (a message has a few dozen). */
const MAX_TRACKED_LINKS = 100;

/**
 * Where `userId`'s own tracked links lead, as a reader reaches them (the spam test reads a
 * message's links through Sendwell's click tracking): each address that is one of this
 * server's click-tracking addresses (PUBLIC_URL's), validly signed for a recipient of one of
 * the user's sends, mapped to its stored target. Anything else (another host, another
 * service's redirect, a bad signature, another user's send) is left out. Records no click.
 */
export const trackedLinkTargets = async (
  platform: TPlatform,
  userId: number,
  urls: string[],
): Promise<Record<string, string>> => {
  const tracked = [...new Set(urls)].slice(0, MAX_TRACKED_LINKS).flatMap((url) => {
    const parts = clickUrlParts(platform, url);
    return parts ? [{ url, ...parts }] : [];
  });
  const found = await findTrackedLinks(platform, tracked);
  const targets: Record<string, string> = {};
  tracked.forEach(({ url }, index) => {
    const link = found[index];
    if (link && link.recipient.user_id === userId) targets[url] = link.link.url;
  });
  return targets;
};

/** The recipient an unsubscribe reference names, with its send's sender for the page; undefined for any other. */
export const findRecipientByUnsubscribeRef = (platform: TPlatform, ref: string) =>
  findRecipientByRef(platform, 'unsubscribe', ref);

/**
 * The recipient a page's reference names (the footer's unsubscribe or preferences link),
 * checked for that purpose; undefined for anything else. An older message's token still
 * unsubscribes (it was every link's value before references); no message carried a
 * preferences link before, so that page takes references only.
 */
export const findRecipientByRef = async (platform: TPlatform, purpose: 'unsubscribe' | 'preferences', ref: string) => {
  const parsed = parseRef(ref);
  if (!parsed || (purpose === 'preferences' && parsed.kind !== 'id')) return undefined;
  const row = await findRecipientForPage(
    platform.db,
    parsed.kind === 'id' ? { id: parsed.id } : { token: parsed.token },
  );
  if (!row || !isRefOf(platform.secrets.signingKey, purpose, parsed, row.token)) return undefined;
  const { token: _token, ...recipient } = row;
  return recipient;
};

/**
 * The circuit breaker: every intake has the sends its events touched judged (issue 31); a
 * source that groups its sends (campaigns) has its groups judged after it reads their outcomes.
 */
export { judgeBreakerGroups, judgeSends } from './circuit-breaker.service';
/** An account's own daily limit (SMTP), or null (Mailgun, the test inbox). */
export { dailyCapOf, isDailyCapped, sentInWindow } from './daily-cap';
/** Said when a plan without sending accounts meets a send through one; editing a scheduled send says it too. */
export { PLAN_WITHOUT_ACCOUNTS } from './dispatch';
export type { TNewDeliveryEvent } from './event-record';
export {
  composeSample,
  envelopeSenderOf,
  fromHeader,
  MessageComposeError,
  messageIdOf,
  RECIPIENT_VARIABLE,
  refOfMessageId,
  refOfVerp,
} from './message';
/** Outcomes in one place: every intake hands the outside world's word to `applyOutcomes` (`outcomes.ts`). */
export { applyOutcomes, type TIntakeEvent } from './outcomes';
export { isRefForm, type TRefPurpose } from './recipient-refs';
export {
  cancelHeldParts,
  deleteUserSend,
  findSplitParts,
  resumeBreakerGroup,
  setScheduledStatus,
} from './send-lifecycle';
/**
 * What the other modules read of sends: History, Scheduled Emails and the dashboard (the
 * user's sends and events), the drip engine (its messages' outcomes and first clicks), the
 * A/B decision (its parts' handover), the intake (recipients by address).
 */
export {
  findBounceSplit,
  findHandoverOf,
  findHardBouncedSends,
  findSendForFigures,
  findSendRecipientsByEmails,
  findUserSend,
  firstClicksOf,
  recentListFigures,
  selectSendEvents,
  selectUserEvents,
  selectUserSends,
  sourcedOutcomesOfSends,
  type TEventRecipient,
  type TSendRow,
} from './send-reads';
/** Composition pieces the intake checks against: tracking signatures, the VERP form, Message-IDs. */
export { isTrackingSignature } from './tracking-links';

/** Tells the send's user its state at once (`SendProgressEvent`), e.g. after an A/B test let its rest go. */
export const publishSendProgress = (platform: TPlatform, sendId: number) =>
  publishProgress(platform, sendId, { force: true });
