import type { TPlatform } from '../../platform/context';
import { applyOutcomes, findRecipientByUnsubscribeRef, isRefForm } from '../delivery/delivery.service';
import { unsubscribeEverywhere } from '../suppression/suppression.service';

/**
 * Unsubscribing from a message: the link in every email (`GET /unsubscribe/{token}`, a page
 * with one button) and RFC 8058's one-click POST. Either unsubscribes the address from every
 * list of the account the email came from, counted once on the send however often it comes.
 */

/** Whether a value has the form of an unsubscribe reference (the link's and List-Unsubscribe's; R34). */
export const isToken = (ref: string) => isRefForm(ref);

/** The recipient an unsubscribe reference names (an older message's token too); undefined for anything else. */
export const findByToken = (platform: TPlatform, ref: string) => findRecipientByUnsubscribeRef(platform, ref);

/**
 * Unsubscribes a recipient from every list of the account the email came from: one event
 * per recipient (its id is the event's, so the link and the one-click POST, however often
 * they come, record it once).
 */
export const unsubscribe = async (platform: TPlatform, token: string) => {
  const found = isToken(token) ? await findByToken(platform, token) : undefined;
  if (!found) return null;
  await platform.db.transaction().execute(async (trx) => {
    const [isNew] = await applyOutcomes(platform, trx, [
      {
        recipient: {
          id: found.id,
          send_id: found.send_id,
          email: found.email,
          user_id: found.user_id,
          account_id: found.account_id,
        },
        userId: found.user_id,
        accountId: found.account_id,
        email: found.email,
        type: 'unsubscribed',
        source: 'recipient',
        providerEventId: `unsubscribe:${found.id}`,
      },
    ]);
    // Pressed again after the address came back on a list (imported again): it leaves again.
    if (!isNew && found.account_id !== null) {
      await unsubscribeEverywhere(
        platform,
        trx,
        { userId: found.user_id, accountId: found.account_id, email: found.email },
        'unsubscribe-link',
      );
    }
  });
  return found;
};
