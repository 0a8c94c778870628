import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { hmac, safeEqual } from '../../platform/tokens';
import { publicUrl } from '../auth/auth.service';

/** `href="…"` of anchors whose target is a web address; the rest (mailto:, #, javascript:) is left alone. */
const ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi;

const decodeEntities = (value: string) => value.replace(/&amp;/g, '&');

/** The web links of a send's HTML, in order, once each. */
export const linksOf = (html: string) => {
  const links = new Set<string>();
  for (const match of html.matchAll(ANCHOR_HREF)) links.add(decodeEntities(match[3]!));
  return [...links].filter((url) => url.length <= 2000);
};

/** Stores a send's links once (at snapshot time) and answers them by target. */
export const storeLinks = async (executor: Executor, sendId: number, html: string) => {
  const urls = linksOf(html);
  if (urls.length > 0) {
    await executor
      .insertInto('send_links')
      .values(urls.map((url) => ({ send_id: sendId, url })))
      .onConflict((conflict) => conflict.columns(['send_id', 'url']).doNothing())
      .execute();
  }
};

export const linksOfSend = async (executor: Executor, sendId: number) =>
  new Map(
    (await executor.selectFrom('send_links').select(['id', 'url']).where('send_id', '=', sendId).execute()).map(
      (link) => [link.url, link.id],
    ),
  );

/** A short signature binding a recipient's token to a link (or to the open pixel). */
const signature = (platform: TPlatform, token: string, what: string) =>
  hmac(platform.secrets.signingKey, `track:${token}:${what}`).slice(0, 16);

export const clickUrl = (platform: TPlatform, token: string, linkId: number) =>
  `${publicUrl(platform)}/api/t/c/${token}/${linkId}/${signature(platform, token, String(linkId))}`;

export const openUrl = (platform: TPlatform, token: string) =>
  `${publicUrl(platform)}/api/t/o/${token}/${signature(platform, token, 'open')}.gif`;

/** How one message (or a batch template) names its tracking addresses. */
export type TTrackingUrls = { click: (linkId: number) => string; open: () => string };

export const trackingUrlsFor = (platform: TPlatform, token: string): TTrackingUrls => ({
  click: (linkId) => clickUrl(platform, token, linkId),
  open: () => openUrl(platform, token),
});

/** Points the message's links at the click tracker and adds the open pixel, as the send asks. */
export const trackHtml = (
  html: string,
  urls: TTrackingUrls,
  links: Map<string, number>,
  { opens, clicks }: { opens: boolean; clicks: boolean },
) => {
  let tracked = clicks
    ? html.replace(ANCHOR_HREF, (whole, start: string, quote: string, url: string) => {
        const linkId = links.get(decodeEntities(url));
        return linkId === undefined ? whole : `${start}${quote}${urls.click(linkId)}${quote}`;
      })
    : html;
  if (opens) {
    const pixel = `<img src="${urls.open()}" width="1" height="1" alt="" style="display:block;border:0">`;
    tracked = /<\/body>/i.test(tracked) ? tracked.replace(/<\/body>/i, `${pixel}</body>`) : `${tracked}${pixel}`;
  }
  return tracked;
};

/** The signatures a recipient's tracking addresses carry, for providers that fill them in per recipient. */
export const trackingSignatures = (platform: TPlatform, token: string, links: Map<string, number>) => ({
  open: signature(platform, token, 'open'),
  clicks: Object.fromEntries([...links.values()].map((linkId) => [linkId, signature(platform, token, String(linkId))])),
});

const recipientOf = (platform: TPlatform, token: string) =>
  platform.db
    .selectFrom('send_recipients')
    .select(['id', 'send_id', 'opened_at', 'clicked_at'])
    .where('token', '=', token)
    .executeTakeFirst();

/** Records an open: every one as an event, the recipient once in the send's count. */
export const recordOpen = async (platform: TPlatform, token: string, sig: string) => {
  if (!/^[0-9a-f]{32}$/.test(token) || !safeEqual(sig, signature(platform, token, 'open'))) return;
  const recipient = await recipientOf(platform, token);
  if (!recipient) return;
  await platform.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('send_events')
      .values({ send_id: recipient.send_id, recipient_id: recipient.id, type: 'opened' })
      .execute();
    const first = await trx
      .updateTable('send_recipients')
      .set({ opened_at: new Date() })
      .where('id', '=', recipient.id)
      .where('opened_at', 'is', null)
      .executeTakeFirst();
    if (first.numUpdatedRows > 0n) {
      await sql`update sends set opened_count = opened_count + 1 where id = ${recipient.send_id}`.execute(trx);
    }
  });
};

/**
 * A click: redirects only to a target stored for the recipient's own send, and only when
 * the signature matches (R16); anything else gets nothing to follow.
 */
export const recordClick = async (platform: TPlatform, token: string, linkId: number, sig: string) => {
  if (!/^[0-9a-f]{32}$/.test(token) || !safeEqual(sig, signature(platform, token, String(linkId)))) return null;
  const recipient = await recipientOf(platform, token);
  if (!recipient) return null;
  const link = await platform.db
    .selectFrom('send_links')
    .select(['id', 'url'])
    .where('id', '=', linkId)
    .where('send_id', '=', recipient.send_id)
    .executeTakeFirst();
  if (!link || !/^https?:\/\//i.test(link.url)) return null;
  await platform.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('send_events')
      .values({ send_id: recipient.send_id, recipient_id: recipient.id, type: 'clicked', link_id: link.id })
      .execute();
    const first = await trx
      .updateTable('send_recipients')
      .set({ clicked_at: new Date() })
      .where('id', '=', recipient.id)
      .where('clicked_at', 'is', null)
      .executeTakeFirst();
    if (first.numUpdatedRows > 0n) {
      await sql`update sends set clicked_count = clicked_count + 1 where id = ${recipient.send_id}`.execute(trx);
    }
  });
  return link.url;
};

/** The 1×1 transparent GIF the open pixel answers with. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
