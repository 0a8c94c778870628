import type { TPlatform } from '../../platform/context';
import { findAccountOwners } from '../accounts/accounts.service';
import {
  applyOutcomes,
  findRecipientsByRefs,
  RECIPIENT_VARIABLE,
  type TEventRecipient,
  type TIntakeEvent,
} from '../delivery/delivery.service';
import { findPendingEvents, markApplied } from './delivery-events.repository';
import type { TMailgunEvent as TEvent } from './mailgun-webhooks';

/**
 * Mailgun's events, once stored by the webhook (`mailgun-webhooks.ts`), applied in batches
 * through the one entry point every intake uses.
 */

/** Mailgun's reasons for a permanent failure that leave the address fine. */
const SOFT_MAILGUN_REASONS = new Set(['old', 'espblock']);

/** Events applied per transaction. */
const APPLY_BATCH = 1000;

/**
 * Applies stored events in batches: each event once (its row is marked applied in the same
 * transaction), through the one entry point every intake uses (`applyOutcomes`),
 * which moves each send's counters once per batch rather than once per event.
 */
export const applyPendingEvents = async (platform: TPlatform) => {
  let applied = 0;
  for (;;) {
    const count = await platform.db.transaction().execute(async (trx) => {
      const stored = await findPendingEvents(trx, APPLY_BATCH);
      if (stored.length === 0) return 0;
      // Events of an account deleted since have nobody to count for: marked applied, nothing more.
      const owners = await findAccountOwners(
        trx,
        stored.flatMap((row) => (row.account_id === null ? [] : [row.account_id])),
      );
      const pending = stored.flatMap((row) => {
        const userId = row.account_id === null ? undefined : owners.get(row.account_id);
        return userId === undefined ? [] : [{ ...row, account_id: row.account_id!, user_id: userId }];
      });
      const events = pending.map((row) => row.payload as TEvent);
      const recipients = await findRecipientsByRefs(
        platform,
        trx,
        'provider',
        events.map((event) => {
          const token = event['user-variables']?.[RECIPIENT_VARIABLE];
          return typeof token === 'string' ? token : null;
        }),
        pending.map((row) => row.account_id),
      );
      await applyOutcomes(
        platform,
        trx,
        pending.flatMap((row, index) => {
          const intake = intakeEventOf(events[index]!, recipients[index], row);
          return intake ? [intake] : [];
        }),
      );
      await markApplied(
        trx,
        stored.map((row) => row.id),
      );
      return stored.length;
    });
    applied += count;
    if (count < APPLY_BATCH) return applied;
  }
};

/**
 * Mailgun's event as an intake event: its own id makes it one record however often it
 * arrives (R10). Mailgun's `accepted` is left out: dispatch records acceptance from
 * Mailgun's answer to the call itself; a temporary failure is Mailgun's to retry (deferred).
 */
const intakeEventOf = (
  event: TEvent,
  recipient: TEventRecipient | undefined,
  account: { account_id: number; user_id: number },
): TIntakeEvent | null => {
  const email = recipient?.email ?? event.recipient;
  if (!email) return null;
  const status = event['delivery-status'];
  const detail = [status?.code, status?.message, status?.description].filter(Boolean).join(' ') || event.reason;
  const base = {
    recipient: recipient ?? null,
    userId: account.user_id,
    accountId: account.account_id,
    email,
    source: 'mailgun' as const,
    providerEventId: event.id,
    ...(typeof event.timestamp === 'number' ? { occurredAt: new Date(event.timestamp * 1000) } : {}),
  };
  switch (event.event) {
    case 'delivered':
    case 'opened':
    case 'clicked':
    case 'unsubscribed':
      return { ...base, type: event.event };
    case 'complained':
      return { ...base, type: 'complained', suppression: { reason: event.event } };
    case 'failed':
      if (event.severity !== 'permanent') return { ...base, type: 'deferred', severity: 'temporary', detail };
      // Mailgun gives up with a "permanent" failure whose reason says the address is not at
      // fault: `old` (temporary failures past its retry time), `espblock` (the receiving
      // provider blocked the sender). Those are soft bounces (GLOSSARY.md), as Mailgun itself
      // does not put them on its bounce list.
      return {
        ...base,
        type: 'failed',
        severity: SOFT_MAILGUN_REASONS.has(event.reason ?? '') ? 'temporary' : 'permanent',
        detail,
        suppression: { reason: event.event, message: status?.message, description: status?.description },
      };
    default:
      return null;
  }
};
