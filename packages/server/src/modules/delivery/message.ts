import { randomBytes } from 'node:crypto';
import { mergeValue, replaceMergeFields, UNSUBSCRIBE_FIELD } from '@sendwell/contracts';
import type { Selectable } from 'kysely';
import type * as tasks from '../../cpu-tasks';
import type { TPlatform } from '../../platform/context';
import { CpuTaskError } from '../../platform/cpu-pool';
import type { SendsTable } from '../../platform/db-schema';
import { publicUrl } from '../../platform/public-url';
import type { TOutgoingMessage } from '../../providers/mail';
import { recipientRefs, type TRefPurpose } from './recipient-refs';
import { textPartOf } from './text-part';
import {
  clickUrlWith,
  openUrlWith,
  type TTrackingUrls,
  trackHtml,
  trackingKeyOf,
  trackingSignatures,
  webHrefsOf,
} from './tracking-links';

/** The custom variable each provider-batch message carries, naming its recipient row (Mailgun's webhooks give it back). */
export const RECIPIENT_VARIABLE = 'sendwell-recipient';

type TRecipient = {
  /** The recipient's row: its id and secret token make the message's references (`recipient-refs.ts`). */
  id: number;
  email: string;
  name: string;
  fields: Record<string, string>;
  token: string;
  headers?: Record<string, string> | null;
};

/**
 * The most a composed message may hold, in characters: the body allows 2,000,000, and
 * merge fields and tracking addresses make it longer. A template that repeats a large
 * field thousands of times would otherwise build hundreds of megabytes per recipient (R24).
 */
export const MAX_MESSAGE_CHARS = 10_000_000;

/** One recipient's message is too large with their fields; or the send's HTML cannot be composed for anyone. */
export type TComposeFailure = 'too-large' | 'uncomposable';

/**
 * A message cannot be composed. `too-large`: one recipient's, thrown by the function
 * `prepareMessage` gives and by the `variablesOf` of `buildBatchMessage`; dispatch fails that
 * recipient alone, with `message` as its reason (written for the user), and the send goes on.
 * `uncomposable`: the send's HTML itself, thrown while preparing; dispatch fails the send
 * once, with the reason, instead of retrying it. Anything else thrown while composing is a
 * fault of the code, not of the message.
 */
export class MessageComposeError extends Error {
  override readonly name = 'MessageComposeError';
  constructor(
    readonly reason: TComposeFailure,
    message: string,
  ) {
    super(message);
  }
}

const tooLarge = () =>
  new MessageComposeError(
    'too-large',
    `With this recipient's fields filled in, the message would be longer than ${MAX_MESSAGE_CHARS.toLocaleString('en-US')} characters.`,
  );

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Header values never carry a line break: nothing a user typed can add a header (R18). */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ').trim();

/** A display name as RFC 5322 wants it: quoted, with quotes and backslashes escaped. */
export const fromHeader = (name: string, address: string) => {
  const clean = oneLine(name);
  return clean ? `"${clean.replace(/["\\]/g, (character) => `\\${character}`)}" <${address}>` : address;
};

/** The page and the one-click (RFC 8058) address that unsubscribe this recipient, by its unsubscribe reference. */
export const unsubscribeUrls = (platform: TPlatform, unsubscribeRef: string) => ({
  page: `${publicUrl(platform)}/unsubscribe/${unsubscribeRef}`,
  oneClick: `${publicUrl(platform)}/api/unsubscribe/${unsubscribeRef}`,
});

/**
 * A recipient's references under the platform's signing key, all from one HMAC
 * (`recipient-refs.ts`), kept for the recipient object a message is being composed for: its
 * message asks for four or five of them.
 */
const refsKept = new WeakMap<object, Record<TRefPurpose, string>>();

/** A recipient's reference for one purpose, under the platform's signing key. */
export const refOf = (platform: TPlatform, purpose: TRefPurpose, recipient: { id: number; token: string }) => {
  let refs = refsKept.get(recipient);
  if (refs === undefined) {
    refs = recipientRefs(platform.secrets.signingKey, recipient);
    refsKept.set(recipient, refs);
  }
  return refs[purpose];
};

/**
 * The plain-text alternative of a send's HTML (`text-part.ts`), made on a thread of the CPU
 * pool past 16 KB (html-to-text takes seconds over a large table, R40). Once per send and template, not
 * per recipient: the last few are kept. HTML that cannot be converted (nested past the bound,
 * or past the time or memory of a pool thread) makes the whole send uncomposable.
 */
const textTemplates = new Map<string, string>();
const TEXT_TEMPLATES_KEPT = 32;

/**
 * HTML up to this size is made on the event loop. Its worst case measured (a one-row table
 * of 16 KB through html-to-text and the link finder) is about 10-20 ms, where a pool thread
 * takes 115 ms to start and load them and then holds about 27 MB for a minute; an ordinary
 * message takes 1-4 ms. Past it the time grows faster than the size (a 64 KB row 110 ms,
 * 128 KB 480 ms), so larger HTML goes to a thread.
 */
const ON_LOOP_HTML_CHARS = 16_384;
type TComposeTask = 'textPart' | 'webHrefs';
type TTaskResult<K extends TComposeTask> = Awaited<ReturnType<(typeof tasks)[K]>>;
const onLoop: { [K in TComposeTask]: (html: string) => TTaskResult<K> } = {
  textPart: textPartOf,
  webHrefs: webHrefsOf,
};

/**
 * Work of composing done on a CPU pool thread (R40), or on the loop when the HTML is small.
 * What the pool cannot finish in its time or memory makes the send uncomposable, `what`
 * naming the part; a full pool is not the message's fault and is thrown as it is (the
 * dispatch job tries again).
 */
const onCpu = async <K extends TComposeTask>(
  platform: TPlatform,
  name: K,
  html: string,
  what: string,
): Promise<TTaskResult<K>> => {
  const cannotMake = (reason: string) =>
    new MessageComposeError(
      'uncomposable',
      `${what} could not be made (${reason}). Simplify the HTML and send it again.`,
    );
  if (html.length <= ON_LOOP_HTML_CHARS) {
    try {
      return onLoop[name](html);
    } catch (error) {
      throw cannotMake((error as Error).message);
    }
  }
  const { timeoutMs } = platform.config.messageWork;
  try {
    return await platform.cpu.run(name, html, { timeoutMs });
  } catch (error) {
    if (!(error instanceof CpuTaskError) || error.kind === 'busy') throw error;
    if (error.kind !== 'timeout') throw cannotMake(error.message);
    throw new MessageComposeError(
      'uncomposable',
      `${what} took longer than ${Math.round(timeoutMs / 1000)} s to make: the HTML is too large or complex. Simplify it and send it again.`,
    );
  }
};

export const textTemplateOf = async (platform: TPlatform, html: string) => {
  const known = textTemplates.get(html);
  if (known !== undefined) return known;
  const part = await onCpu(platform, 'textPart', html, 'Its plain-text part');
  if (part.problem !== null) throw new MessageComposeError('uncomposable', part.problem);
  if (textTemplates.size >= TEXT_TEMPLATES_KEPT) textTemplates.delete(textTemplates.keys().next().value!);
  textTemplates.set(html, part.text);
  return part.text;
};

/** The web links of HTML and where each is written (`webHrefsOf`), read on a CPU pool thread. */
export const webHrefsOn = (platform: TPlatform, html: string) => onCpu(platform, 'webHrefs', html, 'Its tracked links');

type TParts = {
  /** A merge field's text in the subject (isHtml false) or the body (escaped). */
  resolve: (key: string, fallback: string | undefined, isHtml: boolean) => string;
  tracking: TTrackingUrls;
  unsubscribePage: string;
  unsubscribeOneClick: string;
  /** The recipient's preferences page (their lists of this sender, their name). */
  preferencesPage: string;
  /** The unsubscribe reference (the List-Unsubscribe mailto names it too). */
  unsubscribeRef: string;
  /** The reference a provider gives back with its events (Mailgun's custom variable). */
  providerRef: string;
};

/**
 * The message as every recipient gets it, with `parts` filling in what is theirs. The
 * links to track are found in the rendered HTML on a CPU pool thread (a tokenizer pass over
 * up to 2 MB: 50-190 ms on the event loop); only the splicing is done here.
 */
const compose = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  links: Map<string, number>,
  parts: TParts,
  textTemplate: string,
): Promise<Omit<TOutgoingMessage, 'to'>> => {
  // `{{unsubscribe_url}}` is the recipient's unsubscribe page (the editor's footer block links
  // it, issue 46); a message that links it gets no second unsubscribe link in the footer.
  let hasOwnUnsubscribe = false;
  const render = (template: string, isHtml: boolean) =>
    replaceMergeFields(template, ({ key, fallback }) => {
      if (key !== UNSUBSCRIBE_FIELD) return parts.resolve(key, fallback, isHtml);
      hasOwnUnsubscribe = true;
      return parts.unsubscribePage;
    });
  const rendered = render(send.html, true);
  const footer = `<p style="font-size:12px;color:#777;text-align:center;margin-top:24px">${hasOwnUnsubscribe ? '' : `You are receiving this email because you subscribed to our list. <a href="${escapeHtml(parts.unsubscribePage)}">Unsubscribe</a> · `}<a href="${escapeHtml(parts.preferencesPage)}">Manage your subscriptions</a></p>`;
  const isTrackingClicks = send.track_clicks && links.size > 0;
  const html = trackHtml(
    rendered,
    parts.tracking,
    links,
    { opens: send.track_opens, clicks: isTrackingClicks },
    isTrackingClicks ? await webHrefsOn(platform, rendered) : [],
  );
  const body = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${footer}</body>`) : `${html}${footer}`;
  // The subject before the text: a batch numbers its variables in this order.
  const subject = oneLine(render(send.subject, false));
  const text = `${render(textTemplate, false)}\n\n--\nUnsubscribe: ${parts.unsubscribePage}\nManage your subscriptions: ${parts.preferencesPage}\n`;
  return {
    from: fromHeader(send.from_name, send.from_address),
    subject,
    html: body,
    text,
    ...(send.reply_to ? { replyTo: oneLine(send.reply_to) } : {}),
    variables: { [RECIPIENT_VARIABLE]: parts.providerRef },
    headers: {
      'List-Unsubscribe': `<${parts.unsubscribeOneClick}>, <mailto:${send.from_address}?subject=unsubscribe%20${parts.unsubscribeRef}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      // Gmail's feedback loop reports complaint rates by these identifiers (Postmaster Tools):
      // the send, the user and the kind of send, then the sender's fixed id.
      'Feedback-ID': `${send.id}:${send.user_id}:${send.source}:sendwell`,
    },
  };
};

/**
 * A send's message prepared once for all its recipients: composed (merge fields, tracking,
 * footer, plain-text part) with a marker wherever a recipient's own value goes, then
 * filled per recipient by joining strings. A recipient then costs their values and
 * tracking signatures, not a parse of the HTML (B1: composing was a sixth of a message's
 * time, and every session waited while a claim's 200 messages were composed).
 */
export const prepareMessage = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  links: Map<string, number> = new Map(),
): Promise<(recipient: TRecipient) => TOutgoingMessage> => {
  const textTemplate = await textTemplateOf(platform, send.html);
  // Markers carry a random nonce in private-use characters: no template or field holds one.
  const nonce = randomBytes(6).toString('hex');
  /** A slot's value from the recipient; `value(n)` is another slot's value for the same recipient. */
  type TFill = (recipient: TRecipient, value: (slot: number) => string) => string;
  const slots: TFill[] = [];
  const slotIds = new Map<string, string>();
  /** The marker of a value, one per distinct value however often the message uses it. */
  const slot = (id: string, fill: TFill) => {
    let marker = slotIds.get(id);
    if (marker === undefined) {
      marker = `\uE000${nonce}.${slots.push(fill) - 1}\uE001`;
      slotIds.set(id, marker);
    }
    return marker;
  };
  const unsubscribeRef = slot('unsubscribe', (recipient) => refOf(platform, 'unsubscribe', recipient));
  // The tracking reference and key are one slot each, computed once per recipient however
  // many links use them.
  slot('tracking', (recipient) => refOf(platform, 'tracking', recipient));
  const trackingSlot = slots.length - 1;
  slot('tracking key', (recipient) => trackingKeyOf(platform, recipient.token));
  const trackingKeySlot = slots.length - 1;
  const unsubscribeUrl = unsubscribeUrls(platform, unsubscribeRef);
  const preferencesRef = slot('preferences', (recipient) => refOf(platform, 'preferences', recipient));
  const message = await compose(
    platform,
    send,
    links,
    {
      resolve: (key, fallback, isHtml) =>
        slot(JSON.stringify(['field', key, fallback ?? null, isHtml]), (recipient) => {
          const value = mergeValue(recipient, key, fallback);
          return isHtml ? escapeHtml(value) : value;
        }),
      tracking: {
        click: (linkId) =>
          slot(`click ${linkId}`, (_recipient, value) =>
            clickUrlWith(platform, value(trackingSlot), value(trackingKeySlot), linkId),
          ),
        open: () =>
          slot('open', (_recipient, value) => openUrlWith(platform, value(trackingSlot), value(trackingKeySlot))),
      },
      unsubscribePage: unsubscribeUrl.page,
      unsubscribeOneClick: unsubscribeUrl.oneClick,
      preferencesPage: `${publicUrl(platform)}/preferences/${preferencesRef}`,
      unsubscribeRef,
      providerRef: '',
    },
    textTemplate,
  );
  const markers = new RegExp(`\uE000${nonce}\\.(\\d+)\uE001`);
  /** A template as its fixed pieces (even indexes) and slot numbers (odd ones). */
  const piecesOf = (template: string) =>
    template.split(markers).map((piece, index) => (index % 2 === 1 ? Number(piece) : piece));
  const subject = piecesOf(message.subject);
  const html = piecesOf(message.html ?? '');
  const text = piecesOf(message.text ?? '');
  const headers = Object.entries(message.headers ?? {}).map(([name, value]) => [name, piecesOf(value)] as const);
  const bounces = platform.config.bounces;

  return (recipient) => {
    const values: (string | undefined)[] = new Array(slots.length);
    const value = (index: number): string => (values[index] ??= slots[index]!(recipient, value));
    /** A template with the recipient's values, refused once it grows past the limit. */
    const fill = (pieces: (string | number)[]) => {
      if (pieces.length === 1) return pieces[0] as string;
      let length = 0;
      const filled: string[] = new Array(pieces.length);
      for (let index = 0; index < pieces.length; index++) {
        const piece = pieces[index]!;
        const filledPiece = typeof piece === 'string' ? piece : value(piece);
        length += filledPiece.length;
        if (length > MAX_MESSAGE_CHARS) throw tooLarge();
        filled[index] = filledPiece;
      }
      return filled.join('');
    };
    return {
      from: message.from,
      to: recipient.email,
      subject: oneLine(fill(subject)),
      html: fill(html),
      text: fill(text),
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      variables: { [RECIPIENT_VARIABLE]: refOf(platform, 'provider', recipient) },
      ...(bounces ? { envelopeFrom: envelopeSenderOf(platform, refOf(platform, 'verp', recipient))! } : {}),
      headers: {
        ...Object.fromEntries(headers.map(([name, pieces]) => [name, fill(pieces)])),
        ...recipient.headers,
        'Message-ID': messageIdOf(platform, send, recipient),
      },
    };
  };
};

/**
 * One recipient's message: the send's HTML with the recipient's fields, a visible
 * unsubscribe link, `List-Unsubscribe` (HTTPS and mailto) with one-click POST, and a
 * Message-ID of its own. A send's dispatch prepares the message once (`prepareMessage`).
 */
export const buildMessage = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  recipient: TRecipient,
  links: Map<string, number> = new Map(),
): Promise<TOutgoingMessage> => (await prepareMessage(platform, send, links))(recipient);

/**
 * The Message-ID of a recipient's message: its Message-ID reference at the sender's domain.
 * A follow-up names it in In-Reply-To; a report or complaint that quotes the original is
 * tied to its recipient by it (`refsOfMessageId`). Messages sent before references carried
 * `<token.sendId@domain>`.
 */
export const messageIdOf = (
  platform: TPlatform,
  send: { from_address: string },
  recipient: { id: number; token: string },
) => `<${refOf(platform, 'message-id', recipient)}@${send.from_address.split('@').pop() || 'sendwell.local'}>`;

/** The reference a Message-ID may carry (this form, or an older message's token), else null. */
export const refOfMessageId = (messageId: string) => {
  const match = /^<?([0-9a-z]{1,13}-[0-9a-f]{20}|[0-9a-f]{32})(?:\.\d+)?@[^>\s]+>?$/i.exec(messageId.trim());
  return match ? match[1]!.toLowerCase() : null;
};

/**
 * The message of a provider batch (Mailgun, up to 1,000 recipients a call): what differs
 * per recipient is a `%recipient.…%` variable, and `variablesOf` gives each recipient's
 * values (merge fields with their fallbacks, token, tracking signatures). A field used
 * again with the same fallback reuses its variable, so a recipient's variables stay few
 * however often the template repeats it.
 */
export const buildBatchMessage = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  links: Map<string, number>,
) => {
  const textTemplate = await textTemplateOf(platform, send.html);
  const slots: { key: string; fallback: string | undefined; isHtml: boolean }[] = [];
  const slotIndex = new Map<string, number>();
  const base = publicUrl(platform);
  const template = await compose(
    platform,
    send,
    links,
    {
      resolve: (key, fallback, isHtml) => {
        const id = JSON.stringify([key, fallback ?? null, isHtml]);
        let index = slotIndex.get(id);
        if (index === undefined) {
          index = slots.push({ key, fallback, isHtml }) - 1;
          slotIndex.set(id, index);
        }
        return `%recipient.m${index}%`;
      },
      tracking: {
        click: (linkId) => `${base}/api/t/c/%recipient.t%/${linkId}/%recipient.c${linkId}%`,
        open: () => `${base}/api/t/o/%recipient.t%/%recipient.o%.gif`,
      },
      unsubscribePage: `${base}/unsubscribe/%recipient.u%`,
      unsubscribeOneClick: `${base}/api/unsubscribe/%recipient.u%`,
      preferencesPage: `${base}/preferences/%recipient.p%`,
      unsubscribeRef: '%recipient.u%',
      providerRef: '%recipient.r%',
    },
    textTemplate,
  );
  const variablesOf = (recipient: TRecipient): Record<string, string> => {
    const signatures = trackingSignatures(platform, recipient.token, links);
    let length = 0;
    return {
      // One reference per purpose (R34): the provider's, the unsubscribe link's, the tracking addresses'.
      r: refOf(platform, 'provider', recipient),
      u: refOf(platform, 'unsubscribe', recipient),
      p: refOf(platform, 'preferences', recipient),
      t: refOf(platform, 'tracking', recipient),
      o: signatures.open,
      ...Object.fromEntries(Object.entries(signatures.clicks).map(([linkId, value]) => [`c${linkId}`, value])),
      ...Object.fromEntries(
        slots.map((slot, index) => {
          const value = mergeValue(recipient, slot.key, slot.fallback);
          length += value.length;
          if (length > MAX_MESSAGE_CHARS) throw tooLarge();
          return [`m${index}`, slot.isHtml ? escapeHtml(value) : oneLine(value)];
        }),
      ),
    };
  };
  return { template, variablesOf };
};

/**
 * The envelope sender that brings a message's bounce back to Sendwell with its recipient
 * (VERP): `bounces+<recipient's VERP reference>@<bounce domain>`.
 */
export const verpAddress = (domain: string, verpRef: string) => `bounces+${verpRef}@${domain}`;

/**
 * The envelope sender (MAIL FROM) the engine gives a recipient's message through SMTP and
 * Gmail: with BOUNCE_DOMAIN, the VERP address at the bounce domain; otherwise none, and the
 * transport sends from the From address. The pre-send check judges SPF and DMARC alignment
 * on what this answers, so the two never disagree (issue 45 §1).
 */
export const envelopeSenderOf = (platform: TPlatform, verpRef: string): string | undefined =>
  platform.config.bounces ? verpAddress(platform.config.bounces.domain, verpRef) : undefined;

/** The reference of a VERP bounce address on this domain (or an older message's token), or null. */
export const refOfVerp = (domain: string, address: string) => {
  const match = /^bounces\+([0-9a-z]{1,13}-[0-9a-f]{20}|[a-f0-9]{32})@(.+)$/i.exec(address.trim());
  return match && match[2]!.toLowerCase() === domain.toLowerCase() ? match[1]!.toLowerCase() : null;
};

/**
 * A send's message as one recipient would get it, composed before anything is stored (the
 * pre-send check reads it as a receiver would): the engine's own composition (headers,
 * List-Unsubscribe, tracking) for a stand-in recipient with no fields, built into MIME as the
 * SMTP transport builds it.
 */
export const composeSample = async (
  platform: TPlatform,
  input: {
    userId: number;
    fromName: string;
    fromAddress: string;
    subject: string;
    html: string;
    replyTo: string;
    trackOpens: boolean;
    trackClicks: boolean;
  },
) => {
  const now = new Date();
  const send = {
    id: 0,
    user_id: input.userId,
    account_id: null,
    type: 1,
    source: 'lists',
    status: 'queued',
    from_name: input.fromName,
    from_address: input.fromAddress,
    subject: input.subject,
    cc: '',
    bcc: '',
    reply_to: input.replyTo,
    html: input.html,
    list_ids: [],
    list_names: '',
    track_opens: input.trackOpens,
    track_clicks: input.trackClicks,
    deliver_at: null,
    started_at: null,
    finished_at: null,
    error: null,
    recipients_count: 0,
    sent_count: 0,
    failed_count: 0,
    unknown_count: 0,
    delivered_count: 0,
    opened_count: 0,
    clicked_count: 0,
    complained_count: 0,
    unsubscribed_count: 0,
    note: null,
    claimed_to: 0,
    waiting_until: null,
    breaker_tripped_at: null,
    breaker_reason: null,
    breaker_judged_from: null,
    breaker_group: null,
    resend_of: null,
    resend_audience: null,
    resend_link_id: null,
    split_group: null,
    split_part: null,
    split_test_percent: null,
    document: null,
    created_at: now,
    updated_at: now,
  } satisfies Selectable<SendsTable>;
  const message = await buildMessage(platform, send, {
    id: 1,
    email: 'recipient@example.com',
    name: '',
    fields: {},
    token: '0'.repeat(32),
  });
  const { variables: _variables, envelopeFrom: _envelopeFrom, ...mime } = message;
  // Built on a CPU pool thread: encoding 2 MB held the event loop up to 300 ms.
  const { timeoutMs } = platform.config.messageWork;
  try {
    const bytes = await platform.cpu.run('buildMime', mime, { timeoutMs });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    if (!(error instanceof CpuTaskError) || error.kind === 'busy') throw error;
    throw new MessageComposeError('uncomposable', `It could not be built into an email (${error.message}).`);
  }
};
