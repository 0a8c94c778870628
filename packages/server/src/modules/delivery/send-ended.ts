import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { notifyUser } from '../notifications/notifications.service';
import { findSend } from './send-lifecycle';

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
