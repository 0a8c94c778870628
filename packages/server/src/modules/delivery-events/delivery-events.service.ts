import type { Executor } from '../../platform/db';
import type { TDeliveryEventType } from '../../platform/db-schema';
import {
  addToSendCounters,
  FIRST_TIME,
  failRecipient,
  insertDeliveryEvents,
  setFirstTimes,
  type TEventRecipient,
  type TFirstTimeKind,
  type TNewDeliveryEvent,
  type TSendCounter,
} from '../delivery/delivery.service';
import { suppress, unsubscribeEverywhere } from '../suppression/suppression.service';

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

/**
 * The one entry point of every intake: records the events (each provider id once) and
 * applies what each new one means, in the caller's transaction:
 * - delivered, opened, clicked, complained, unsubscribed: the recipient's first-time column,
 *   its send's counter moved once per recipient (however often the event comes);
 * - failed (permanent): the address suppressed as a bounce; the recipient `failed` and
 *   counted once;
 * - complained: the address suppressed as a complaint and unsubscribed from every list of
 *   the account; unsubscribed: unsubscribed from every list of the account;
 * - deferred: recorded only (a temporary failure is the provider's to retry).
 * Answers, for each event given, whether it was new.
 */
export const recordDeliveryEvents = async (trx: Executor, events: TIntakeEvent[]): Promise<boolean[]> => {
  const isNew = await insertDeliveryEvents(
    trx,
    events.map((event) => ({
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
      ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    })),
  );
  const fresh = events.filter((_, index) => isNew[index]);
  const counters = new Map<number, Map<TSendCounter, number>>();
  const count = (sendId: number, counter: TSendCounter) => {
    const bySend = counters.get(sendId) ?? new Map<TSendCounter, number>();
    bySend.set(counter, (bySend.get(counter) ?? 0) + 1);
    counters.set(sendId, bySend);
  };
  // First-time columns: one statement per kind for the whole batch (delivered, opened and
  // clicked are nearly all of a provider's traffic).
  const byKind = new Map<TFirstTimeKind, number[]>();
  for (const event of fresh) {
    if (!event.recipient || !isFirstTimeKind(event.type)) continue;
    byKind.set(event.type, [...(byKind.get(event.type) ?? []), event.recipient.id]);
  }
  for (const [kind, recipientIds] of byKind) {
    for (const sendId of await setFirstTimes(trx, kind, recipientIds)) count(sendId, FIRST_TIME[kind].counter);
  }
  // Failures, complaints and unsubscribes (rare) event by event, in arrival order.
  for (const event of fresh) {
    const userId = event.recipient?.user_id ?? event.userId;
    const accountId = event.recipient?.account_id ?? event.accountId;
    const email = event.recipient?.email ?? event.email;
    const suppressAs = (type: 'bounce' | 'complained') =>
      suppress(trx, [
        {
          userId,
          email,
          type,
          reason: event.suppression?.reason ?? event.type,
          message: event.suppression?.message ?? event.detail ?? null,
          description: event.suppression?.description ?? null,
          source: event.source === 'mailgun' ? 'mailgun' : 'smtp',
          sendId: event.recipient?.send_id ?? null,
          accountId,
        },
      ]);
    switch (event.type) {
      case 'failed': {
        if (event.severity !== 'permanent') break;
        await suppressAs('bounce');
        if (event.recipient) {
          const sendId = await failRecipient(
            trx,
            event.recipient.id,
            event.suppression?.message || event.detail || 'bounced',
          );
          if (sendId !== null) count(sendId, 'failed_count');
        }
        break;
      }
      case 'complained':
        await suppressAs('complained');
        if (accountId !== null) await unsubscribeEverywhere(trx, { userId, accountId, email });
        break;
      case 'unsubscribed':
        if (accountId !== null) await unsubscribeEverywhere(trx, { userId, accountId, email });
        break;
      default:
        break;
    }
  }
  await addToSendCounters(trx, counters);
  return isNew;
};
