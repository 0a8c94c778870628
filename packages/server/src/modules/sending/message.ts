import { MERGE_FIELD, mergeValue } from '@sendwell/contracts';
import type { Selectable } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { SendsTable } from '../../platform/db-schema';
import type { TOutgoingMessage } from '../../providers/mail';
import { publicUrl } from '../auth/auth.service';
import { RECIPIENT_VARIABLE } from './mailgun-webhooks';
import { type TTrackingUrls, trackHtml, trackingSignatures, trackingUrlsFor } from './tracking';

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

type TParts = {
  /** A merge field's text in the subject (isHtml false) or the body (escaped). */
  resolve: (key: string, fallback: string | undefined, isHtml: boolean) => string;
  tracking: TTrackingUrls;
  unsubscribePage: string;
  unsubscribeOneClick: string;
  token: string;
};

/** The message as every recipient gets it, with `parts` filling in what is theirs. */
const compose = (
  send: Selectable<SendsTable>,
  links: Map<string, number>,
  parts: TParts,
): Omit<TOutgoingMessage, 'to'> => {
  const render = (template: string, isHtml: boolean) =>
    template.replace(MERGE_FIELD, (_match, key: string, fallback?: string) => parts.resolve(key, fallback, isHtml));
  const footer = `<p style="font-size:12px;color:#777;text-align:center;margin-top:24px">You are receiving this email because you subscribed to our list. <a href="${escapeHtml(parts.unsubscribePage)}">Unsubscribe</a></p>`;
  const html = trackHtml(render(send.html, true), parts.tracking, links, {
    opens: send.track_opens,
    clicks: send.track_clicks,
  });
  const body = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${footer}</body>`) : `${html}${footer}`;
  return {
    from: fromHeader(send.from_name, send.from_address),
    subject: oneLine(render(send.subject, false)),
    html: body,
    ...(send.reply_to ? { replyTo: oneLine(send.reply_to) } : {}),
    variables: { [RECIPIENT_VARIABLE]: parts.token },
    headers: {
      'List-Unsubscribe': `<${parts.unsubscribeOneClick}>, <mailto:${send.from_address}?subject=unsubscribe%20${parts.token}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
};

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
  const message = compose(send, links, {
    resolve: (key, fallback, isHtml) => {
      const value = mergeValue(recipient, key, fallback);
      return isHtml ? escapeHtml(value) : value;
    },
    tracking: trackingUrlsFor(platform, recipient.token),
    unsubscribePage: urls.page,
    unsubscribeOneClick: urls.oneClick,
    token: recipient.token,
  });
  return {
    ...message,
    to: recipient.email,
    headers: { ...message.headers, 'Message-ID': `<${recipient.token}.${send.id}@${domain}>` },
  };
};

/**
 * The message of a provider batch (Mailgun, up to 1,000 recipients a call): what differs
 * per recipient is a `%recipient.…%` variable, and `variablesOf` gives each recipient's
 * values (merge fields with their fallbacks, token, tracking signatures).
 */
export const buildBatchMessage = (platform: TPlatform, send: Selectable<SendsTable>, links: Map<string, number>) => {
  const slots: { key: string; fallback: string | undefined; isHtml: boolean }[] = [];
  const base = publicUrl(platform);
  const template = compose(send, links, {
    resolve: (key, fallback, isHtml) => {
      slots.push({ key, fallback, isHtml });
      return `%recipient.m${slots.length - 1}%`;
    },
    tracking: {
      click: (linkId) => `${base}/api/t/c/%recipient.token%/${linkId}/%recipient.c${linkId}%`,
      open: () => `${base}/api/t/o/%recipient.token%/%recipient.o%.gif`,
    },
    unsubscribePage: `${base}/unsubscribe/%recipient.token%`,
    unsubscribeOneClick: `${base}/api/unsubscribe/%recipient.token%`,
    token: '%recipient.token%',
  });
  const variablesOf = (recipient: TRecipient): Record<string, string> => {
    const signatures = trackingSignatures(platform, recipient.token, links);
    return {
      token: recipient.token,
      o: signatures.open,
      ...Object.fromEntries(Object.entries(signatures.clicks).map(([linkId, value]) => [`c${linkId}`, value])),
      ...Object.fromEntries(
        slots.map((slot, index) => {
          const value = mergeValue(recipient, slot.key, slot.fallback);
          return [`m${index}`, slot.isHtml ? escapeHtml(value) : oneLine(value)];
        }),
      ),
    };
  };
  return { template, variablesOf };
};
