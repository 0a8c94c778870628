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
 * The MACs of all six purposes come from one HMAC-SHA512 of the token, each purpose its own
 * 80 bits of the 512 (B2: an HMAC per purpose was a third of a batch's CPU). HMAC is a
 * pseudo-random function, so disjoint slices of one output are as independent as six HMACs
 * under six labels: seeing one reference (a reply's In-Reply-To) still tells nothing of
 * another (R34), and forging one is still guessing 80 bits.
 *
 * Messages sent before kept other values, and are still read: those of one HMAC-SHA256 per
 * purpose (`legacyMacOf`), and, before references, the token itself in every place (32 hex
 * digits, found by the token's unique index), so their bounces, unsubscribes and clicks keep
 * working. Accepting them weakens nothing new: a new message shows neither.
 */
export type TRefPurpose = 'verp' | 'message-id' | 'unsubscribe' | 'preferences' | 'tracking' | 'provider';

/** Hex digits of the MAC kept: 80 bits, lower case (a VERP local part may be case-folded). */
const MAC_LENGTH = 20;

const LEGACY_TOKEN = /^[0-9a-f]{32}$/;
const REFERENCE = /^([0-9a-z]{1,13})-([0-9a-f]{20})$/;

/** Where each purpose's MAC stands in the one HMAC-SHA512 of the token (hex digits). */
const SLICES: Record<TRefPurpose, number> = {
  verp: 0,
  'message-id': 1,
  unsubscribe: 2,
  preferences: 3,
  tracking: 4,
  provider: 5,
};

/** The MACs of every purpose for a token: one HMAC-SHA512, sliced. */
const macsOf = (key: Buffer, token: string) =>
  createHmac('sha512', key).update(`recipient-refs:${token}`).digest('hex');

const macOf = (key: Buffer, purpose: TRefPurpose, token: string) =>
  macsOf(key, token).slice(SLICES[purpose] * MAC_LENGTH, (SLICES[purpose] + 1) * MAC_LENGTH);

/** The MAC a message sent before one HMAC served every purpose carried: one HMAC-SHA256 per purpose. */
const legacyMacOf = (key: Buffer, purpose: TRefPurpose, token: string) =>
  createHmac('sha256', key).update(`recipient-ref:${purpose}:${token}`).digest('hex').slice(0, MAC_LENGTH);

/** The recipient's reference for one purpose: `<id in base 36>-<MAC>`. */
export const recipientRef = (key: Buffer, purpose: TRefPurpose, recipient: { id: number; token: string }) =>
  `${recipient.id.toString(36)}-${macOf(key, purpose, recipient.token)}`;

/** Every reference of a recipient at once, for one HMAC: what a message composes. */
export const recipientRefs = (key: Buffer, recipient: { id: number; token: string }): Record<TRefPurpose, string> => {
  const macs = macsOf(key, recipient.token);
  const id = recipient.id.toString(36);
  return Object.fromEntries(
    Object.entries(SLICES).map(([purpose, slice]) => [
      purpose,
      `${id}-${macs.slice(slice * MAC_LENGTH, (slice + 1) * MAC_LENGTH)}`,
    ]),
  ) as Record<TRefPurpose, string>;
};

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
  parsed.kind === 'token'
    ? parsed.token === token
    : safeEqual(parsed.mac, macOf(key, purpose, token)) || safeEqual(parsed.mac, legacyMacOf(key, purpose, token));

/** Whether a value has the form of a reference (before any lookup). */
export const isRefForm = (value: string) => parseRef(value) !== null;
