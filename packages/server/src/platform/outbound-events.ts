import type { TOutboundEvent } from '../modules/module';
import type { TPlatform } from './context';
import type { Executor } from './db';

/**
 * Hands events to whoever registered for them (`eventSink` of a module: webhooks out), in
 * the caller's transaction: the event is queued exactly when the change it tells of
 * commits (issue 48 §3). A lower module calls this where it applies an outcome; it names no
 * higher module (DESIGN §7).
 */
export const emitEvents = async (platform: TPlatform, trx: Executor, events: TOutboundEvent[]) => {
  if (events.length === 0) return;
  for (const sink of platform.hooks.eventSinks) await sink(platform, trx, events);
};
