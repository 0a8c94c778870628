import { createHmac } from 'node:crypto';
import { safeEqual } from '../../platform/tokens';

/**
 * One reference per purpose (R34). A message names its recipient in six places: the VERP
 * envelope sender (bounces come back to it), the Message-ID (a report quotes it, a reply
 * names it in In-Reply-To), the unsubscribe link and List-Unsubscribe, the preferences
 * link of the footer, the tracking addresses, and the variable a provider batch gives back
 * in its webhooks. Each carries its
 * own value: the recipient's row id and a MAC of the recipient's secret token under the
 * purpose's label (HMAC-SHA256 with the signing key). The token itself never leaves the
 * server, so seeing one header (a reply's In-Reply-To, a bounce's envelope) gives nothing
 * that works for another purpose: the unsubscribe link cannot be derived from the
 * Message-ID. The id makes the intake's lookup one primary-key read, no table scan.
 *
 * Messages sent before these references carried the token itself in every place (32 hex
 * digits); such a value is still found by the token's unique index, so their bounces,
 * unsubscribes and clicks keep working. Accepting it does not weaken anything new: a new
 * message never shows its token.
 */
export type TRefPurpose = 'verp' | 'message-id' | 'unsubscribe' | 'preferences' | 'tracking' | 'provider';

/** Hex digits of the MAC kept: 80 bits, lower case (a VERP local part may be case-folded). */
const MAC_LENGTH = 20;

const LEGACY_TOKEN = /^[0-9a-f]{32}$/;
const REFERENCE = /^([0-9a-z]{1,13})-([0-9a-f]{20})$/;

const macOf = (key: Buffer, purpose: TRefPurpose, token: string) =>
  createHmac('sha256', key).update(`recipient-ref:${purpose}:${token}`).digest('hex').slice(0, MAC_LENGTH);

/** The recipient's reference for one purpose: `<id in base 36>-<MAC>`. */
export const recipientRef = (key: Buffer, purpose: TRefPurpose, recipient: { id: number; token: string }) =>
  `${recipient.id.toString(36)}-${macOf(key, purpose, recipient.token)}`;

/** What a reference names before it is checked: a row id and its MAC, or a token of an older message. */
export type TParsedRef = { kind: 'id'; id: number; mac: string } | { kind: 'token'; token: string };

/** Reads a reference as a message carried it (any case); null when it is not one. */
export const parseRef = (value: string): TParsedRef | null => {
  const ref = value.trim().toLowerCase();
  if (LEGACY_TOKEN.test(ref)) return { kind: 'token', token: ref };
  const match = REFERENCE.exec(ref);
  if (!match) return null;
  const id = Number.parseInt(match[1]!, 36);
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'id', id, mac: match[2]! } : null;
};

/** Whether a reference read by id carries the MAC of this purpose for the row's token. */
export const isRefOf = (key: Buffer, purpose: TRefPurpose, parsed: TParsedRef, token: string) =>
  parsed.kind === 'token' ? parsed.token === token : safeEqual(parsed.mac, macOf(key, purpose, token));

/** Whether a value has the form of a reference (before any lookup). */
export const isRefForm = (value: string) => parseRef(value) !== null;
