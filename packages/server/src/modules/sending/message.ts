import type { Selectable } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { SendsTable } from '../../platform/db-schema';
import type { TOutgoingMessage } from '../../providers/mail';
import { publicUrl } from '../auth/auth.service';
import { RECIPIENT_VARIABLE } from './mailgun-webhooks';
import { trackHtml } from './tracking';

type TRecipient = { email: string; name: string; fields: Record<string, string>; token: string };

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Header values never carry a line break: nothing a user typed can add a header (R18). */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ').trim();

/** A display name as RFC 5322 wants it: quoted, with quotes and backslashes escaped. */
export const fromHeader = (name: string, address: string) => {
  const clean = oneLine(name);
  return clean ? `"${clean.replace(/["\\]/g, (character) => `\\${character}`)}" <${address}>` : address;
};

/** The page and the one-click (RFC 8058) address that unsubscribe this recipient. */
export const unsubscribeUrls = (platform: TPlatform, token: string) => ({
  page: `${publicUrl(platform)}/unsubscribe/${token}`,
  oneClick: `${publicUrl(platform)}/api/unsubscribe/${token}`,
});

/**
 * One recipient's message: the send's HTML with the recipient's fields, a visible
 * unsubscribe link, `List-Unsubscribe` (HTTPS and mailto) with one-click POST, and a
 * Message-ID of its own.
 */
export const buildMessage = (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  recipient: TRecipient,
  links: Map<string, number> = new Map(),
): TOutgoingMessage => {
  const urls = unsubscribeUrls(platform, recipient.token);
  const domain = send.from_address.split('@').pop() ?? 'sendwell.local';
  const values: Record<string, string> = { ...recipient.fields, name: recipient.name, email: recipient.email };
  // {{field}} and {{field::fallback}}; values are escaped in HTML.
  const render = (template: string, isHtml: boolean) =>
    template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*(?:::([^}]*))?\}\}/g, (_match, key: string, fallback?: string) => {
      const value = values[key.toLowerCase()] ?? values[key] ?? '';
      const chosen = value.trim() ? value : (fallback ?? '');
      return isHtml ? escapeHtml(chosen) : chosen;
    });
  const footer = `<p style="font-size:12px;color:#777;text-align:center;margin-top:24px">You are receiving this email because you subscribed to our list. <a href="${escapeHtml(urls.page)}">Unsubscribe</a></p>`;
  const html = trackHtml(platform, render(send.html, true), recipient.token, links, {
    opens: send.track_opens,
    clicks: send.track_clicks,
  });
  const body = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${footer}</body>`) : `${html}${footer}`;
  return {
    from: fromHeader(send.from_name, send.from_address),
    to: recipient.email,
    subject: oneLine(render(send.subject, false)),
    html: body,
    ...(send.reply_to ? { replyTo: oneLine(send.reply_to) } : {}),
    variables: { [RECIPIENT_VARIABLE]: recipient.token },
    headers: {
      'Message-ID': `<${recipient.token}.${send.id}@${domain}>`,
      'List-Unsubscribe': `<${urls.oneClick}>, <mailto:${send.from_address}?subject=unsubscribe%20${recipient.token}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
};
