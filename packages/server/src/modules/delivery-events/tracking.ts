import type { TPlatform } from '../../platform/context';
import {
  applyOutcomes,
  findRecipientsByRefs,
  findTrackedLink,
  isTrackingSignature,
  type TEventRecipient,
} from '../delivery/delivery.service';

/**
 * Opens and clicks: the tracking addresses each message carries (`delivery/tracking-links.ts`
 * composes and signs them) come back here. Every open and click is a delivery event; the
 * recipient counts once on its send.
 */

const tracked = (recipient: TEventRecipient, type: 'opened' | 'clicked', linkId: number | null = null) =>
  ({
    recipient,
    userId: recipient.user_id,
    accountId: recipient.account_id,
    email: recipient.email,
    type,
    source: 'tracking',
    linkId,
  }) as const;

/**
 * The recipient a tracking address names, with its token (for the link's signature): the
 * tracking reference, or an older message's token (R34).
 */
const recipientOf = async (platform: TPlatform, trackingRef: string) =>
  (await findRecipientsByRefs(platform, platform.db, 'tracking', [trackingRef]))[0];

/** Records an open: every one as an event, the recipient once in the send's count. */
export const recordOpen = async (platform: TPlatform, trackingRef: string, sig: string) => {
  const recipient = await recipientOf(platform, trackingRef);
  if (!recipient || !isTrackingSignature(platform, recipient.token, 'open', sig)) return;
  await platform.db.transaction().execute((trx) => applyOutcomes(platform, trx, [tracked(recipient, 'opened')]));
};

/**
 * A click: redirects only to a target stored for the recipient's own send, and only when
 * the signature matches (R16); anything else gets nothing to follow.
 */
export const recordClick = async (platform: TPlatform, trackingRef: string, linkId: number, sig: string) => {
  const found = await findTrackedLink(platform, trackingRef, linkId, sig);
  if (!found) return null;
  const { recipient, link } = found;
  await platform.db
    .transaction()
    .execute((trx) => applyOutcomes(platform, trx, [{ ...tracked(recipient, 'clicked', link.id), url: link.url }]));
  return link.url;
};

/** The 1×1 transparent GIF the open pixel answers with. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
