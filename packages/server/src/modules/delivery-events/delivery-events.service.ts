import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { TDeliveryEventType } from '../../platform/db-schema';
import {
  addToSendCounters,
  FIRST_TIME,
  failRecipient,
  findRecordedProviderIds,
  insertDeliveryEvents,
  judgeSends,
  setFirstTimes,
  type TEventRecipient,
  type TFirstTimeKind,
  type TNewDeliveryEvent,
  type TSendCounter,
} from '../delivery/delivery.service';
import {
  recordSoftBounces,
  suppress,
  type TSoftBounce,
  unsubscribeEverywhere,
} from '../suppression/suppression.service';

/**
 * The outside world's word about a message, as every intake (Mailgun's webhooks, bounce
 * messages, open and click tracking, unsubscribe links) gives it to `recordDeliveryEvents`:
 * provider-neutral, the recipient already found by the token the message carried.
 */
export type TIntakeEvent = {
  /** The message's recipient; null when the event names an address Sendwell cannot tie to a message. */
  recipient: TEventRecipient | null;
  /** Whose event it is, when there is no recipient (an address the provider names). */
  userId: number;
  accountId: number | null;
  email: string;
  type: Exclude<TDeliveryEventType, 'accepted' | 'unknown'>;
  severity?: 'temporary' | 'permanent' | null;
  source: TNewDeliveryEvent['source'];
  /**
   * The event's own id where it has one (a provider's event id, a bounce message's id): it is
   * recorded and applied once however often it arrives (R10).
   */
  providerEventId?: string | null;
  /** The provider's or receiving server's own words. */
  detail?: string | null;
  linkId?: number | null;
  occurredAt?: Date;
  /** What a suppression this event makes says (a word or two, and the words in full). */
  suppression?: { reason: string; message?: string | null; description?: string | null };
};

const isFirstTimeKind = (kind: string): kind is TFirstTimeKind => Object.hasOwn(FIRST_TIME, kind);

/** Events every occurrence of which is recorded (a figure counts the recipient's first only). */
const isRepeatable = (type: TIntakeEvent['type']) => type === 'opened' || type === 'clicked' || type === 'deferred';

const keyOf = (event: TIntakeEvent) => (event.providerEventId ? `${event.source}\u0000${event.providerEventId}` : null);

/**
 * The one entry point of every intake: records the events and applies what each new one
 * means, in the caller's transaction, so every screen counts each recipient once (R33):
 *
 * - An event whose provider id is recorded already changes nothing (R10).
 * - delivered, complained, unsubscribed: the recipient's first-time column and its send's
 *   counter, and the event recorded, the first time only; a recipient reported twice
 *   (two copies of a complaint, Mailgun's delivered and a retry) is one event.
 * - opened, clicked: every one recorded; the first of a recipient sets its column, moves
 *   its send's counter and is marked `is_first` (what the dashboard counts).
 * - failed: the recipient `failed` and its send's counter moved, once: a second failure
 *   report for a failed recipient is not another event. A permanent failure (a hard bounce)
 *   suppresses the address with the server's words (a later hard report for a recipient
 *   that failed soft still does); a temporary one (a soft bounce) counts toward the
 *   temporary suppression rule.
 * - complained: the address suppressed as a complaint and unsubscribed from every list of
 *   the account; unsubscribed: unsubscribed from every list of the account.
 * - deferred: recorded only (a delay never counts as failed).
 *
 * Events naming no recipient (an address a provider reports that Sendwell sent nothing to)
 * are recorded and suppress as before, and count for nobody. Sends that gained a hard bounce
 * or a complaint are then judged by the circuit breaker (`delivery/circuit-breaker.service.ts`),
 * in the same transaction: a send past its account's line pauses with the event that tripped it. Answers, for each event given,
 * whether it was new (its provider id not seen before, and it changed or recorded something).
 */
export const recordDeliveryEvents = async (
  platform: TPlatform,
  trx: Executor,
  events: TIntakeEvent[],
): Promise<boolean[]> => {
  // An event is considered once: the first of a provider id in this call, if not recorded before.
  const recorded = await findRecordedProviderIds(
    trx,
    events.flatMap((event) =>
      event.providerEventId ? [{ source: event.source, providerEventId: event.providerEventId }] : [],
    ),
  );
  const offered = new Set<string>();
  const isConsidered = events.map((event) => {
    const key = keyOf(event);
    if (key === null) return true;
    if (recorded.has(key) || offered.has(key)) return false;
    offered.add(key);
    return true;
  });
  const counters = new Map<number, Map<TSendCounter, number>>();
  const count = (sendId: number, counter: TSendCounter) => {
    const bySend = counters.get(sendId) ?? new Map<TSendCounter, number>();
    bySend.set(counter, (bySend.get(counter) ?? 0) + 1);
    counters.set(sendId, bySend);
  };
  // First-time columns: one statement per kind for the whole batch (delivered, opened and
  // clicked are nearly all of a provider's traffic). A recipient set now is first once.
  const firstOf = new Map<TFirstTimeKind, Set<number>>();
  const byKind = new Map<TFirstTimeKind, number[]>();
  events.forEach((event, index) => {
    if (!isConsidered[index] || !event.recipient || !isFirstTimeKind(event.type)) return;
    byKind.set(event.type, [...(byKind.get(event.type) ?? []), event.recipient.id]);
  });
  for (const [kind, recipientIds] of byKind) {
    const set = await setFirstTimes(trx, kind, recipientIds);
    for (const { sendId } of set) count(sendId, FIRST_TIME[kind].counter);
    firstOf.set(kind, new Set(set.map((item) => item.recipientId)));
  }
  // Failures: the recipient fails once, in arrival order.
  const isFirstFailure = new Map<number, boolean>();
  for (const [index, event] of events.entries()) {
    if (!isConsidered[index] || event.type !== 'failed' || !event.recipient) continue;
    const sendId = await failRecipient(
      trx,
      event.recipient.id,
      event.suppression?.message || event.detail || 'bounced',
    );
    isFirstFailure.set(index, sendId !== null);
    if (sendId !== null) count(sendId, 'failed_count');
  }
  // What is recorded: every considered event, less a recipient's repeats of once-only kinds.
  const isFirst = events.map((event, index) => {
    if (!isConsidered[index] || !event.recipient) return isConsidered[index]!;
    if (event.type === 'failed') return isFirstFailure.get(index) === true;
    if (isFirstTimeKind(event.type)) {
      const first = firstOf.get(event.type);
      // Only one event of a batch is a recipient's first.
      const isFirstNow = first?.delete(event.recipient.id) === true;
      return isFirstNow;
    }
    return true;
  });
  const toRecord = events.flatMap((event, index) =>
    isConsidered[index] && (isFirst[index] || isRepeatable(event.type)) ? [{ event, index }] : [],
  );
  const inserted = await insertDeliveryEvents(
    trx,
    toRecord.map(({ event, index }) => ({
      userId: event.recipient?.user_id ?? event.userId,
      accountId: event.recipient?.account_id ?? event.accountId,
      sendId: event.recipient?.send_id ?? null,
      recipientId: event.recipient?.id ?? null,
      email: event.recipient?.email ?? event.email,
      type: event.type,
      severity: event.severity ?? null,
      source: event.source,
      providerEventId: event.providerEventId ?? null,
      detail: event.detail ?? null,
      linkId: event.linkId ?? null,
      isFirst: isFirst[index]!,
      ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    })),
  );
  const isNew = events.map(() => false);
  toRecord.forEach(({ index }, position) => {
    isNew[index] = inserted[position] === true;
  });
  // A failure report for a recipient already failed records no event, but a hard one still suppresses.
  events.forEach((event, index) => {
    if (isConsidered[index] && event.type === 'failed' && event.severity === 'permanent' && !isFirst[index]) {
      isNew[index] = true;
    }
  });
  // Suppressions and unsubscribes (rare) event by event, in arrival order.
  const softBounces: TSoftBounce[] = [];
  for (const [index, event] of events.entries()) {
    if (!isNew[index]) continue;
    const userId = event.recipient?.user_id ?? event.userId;
    const accountId = event.recipient?.account_id ?? event.accountId;
    const email = event.recipient?.email ?? event.email;
    const entry = {
      userId,
      email,
      reason: event.suppression?.reason ?? event.type,
      message: event.suppression?.message ?? event.detail ?? null,
      description: event.suppression?.description ?? null,
      source: event.source === 'mailgun' ? ('mailgun' as const) : ('smtp' as const),
      sendId: event.recipient?.send_id ?? null,
      accountId,
    };
    switch (event.type) {
      case 'failed':
        if (event.severity === 'permanent') await suppress(trx, [{ ...entry, type: 'bounce' }]);
        else if (event.severity === 'temporary') softBounces.push(entry);
        break;
      case 'complained':
        await suppress(trx, [{ ...entry, type: 'complained' }]);
        if (accountId !== null) await unsubscribeEverywhere(trx, { userId, accountId, email });
        break;
      case 'unsubscribed':
        if (accountId !== null) await unsubscribeEverywhere(trx, { userId, accountId, email });
        break;
      default:
        break;
    }
  }
  await recordSoftBounces(trx, softBounces);
  await addToSendCounters(trx, counters);
  // What the breaker judges: hard bounces and complaints, new for their recipient.
  const judged = events.flatMap((event, index) =>
    isNew[index] &&
    event.recipient &&
    ((event.type === 'failed' && event.severity === 'permanent') || event.type === 'complained')
      ? [event.recipient.send_id]
      : [],
  );
  if (judged.length > 0) await judgeSends(platform, trx, judged);
  return isNew;
};
