import { figuresOfSend } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { emitEvents } from '../../platform/outbound-events';
import { notifyUser } from '../notifications/notifications.service';
import { findSend } from './send-lifecycle';
import { findBounceSplit } from './send-reads';

const figure = (count: number) => count.toLocaleString('en-US');

/**
 * Tells the user a send ended, finished or failed, in the transaction that ended it (so once,
 * and never for an end that rolled back). Only sends from Send Email and scheduled ones: a
 * drip step and a spam test are parts of something that has its own screen and its own word.
 */
export const notifySendEnded = async (platform: TPlatform, trx: Executor, sendId: number) => {
  const send = await findSend(trx, sendId);
  if (send?.source !== 'lists') return;
  const link = send.account_id === null ? '/history' : `/history/details/${send.account_id}/${send.id}`;
  if (send.status === 'failed') {
    await notifyUser(
      platform,
      { userId: send.user_id, title: `Your email “${send.subject}” was not sent`, body: send.note ?? '', link },
      trx,
    );
    return;
  }
  const parts = [
    `${figure(send.sent_count)} of ${figure(send.recipients_count)} accepted by your sending account`,
    send.failed_count > 0 ? `${figure(send.failed_count)} failed` : null,
    send.unknown_count > 0 ? `${figure(send.unknown_count)} unknown (the answer never came)` : null,
  ].filter((part): part is string => part !== null);
  const isNoneAccepted = send.sent_count === 0 && send.recipients_count > 0;
  await notifyUser(
    platform,
    {
      userId: send.user_id,
      title: isNoneAccepted
        ? `Your email “${send.subject}” finished, but none of it was accepted`
        : `Your email “${send.subject}” was sent`,
      body: `${parts.join(', ')}.${send.note ? ` ${send.note}` : ''}`,
      link,
    },
    trx,
  );
};

/**
 * `send.finished` (issue 48 §3), in the transaction that ended the send: its status and its
 * figures by the one definition (contracts `figures.ts`). Every kind of send but a spam test
 * (which is no send to its user: GLOSSARY.md).
 */
export const emitSendEnded = async (platform: TPlatform, trx: Executor, sendId: number) => {
  if (platform.hooks.eventSinks.length === 0) return;
  const send = await findSend(trx, sendId);
  if (!send || send.source === 'spam-test') return;
  await emitEvents(platform, trx, [
    {
      userId: send.user_id,
      type: 'send.finished',
      orderingKey: `send:${send.id}`,
      data: {
        send_id: send.id,
        source: send.source,
        subject: send.subject,
        status: send.status,
        note: send.note,
        figures: figuresOfSend(send, await findBounceSplit(trx, send.id)),
      },
    },
  ]);
};
