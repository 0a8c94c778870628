import { counted, pluralOf } from '../text/plural';
import { CIRCUIT_BREAKER, formatPercent, type TBreakerLines } from './circuit-breaker';
import type { TPreSendItem } from './pre-send';
import { SEND_MESSAGES } from './sending';

/**
 * The one rule for an audience's health (issue 45 §1), for every checklist that has an
 * audience: Send Email's lists and a drip campaign's recipients. (The spam-test form has no
 * audience: its one message goes to the test mailbox.) Red is for evidence only: addresses
 * known to be bad (their syntax, or the user's own verification found them invalid), or
 * past sends to these lists over the account's breaker lines. An address never verified is
 * no evidence: a list freshly imported is all unverified, and "verify first" is a warning
 * with its reason (hard bounces, and with them the sender's reputation), never red.
 */

export type TAudienceFacts = {
  /** Addresses the message goes to, each once. */
  recipients: number;
  /** Of them, never found valid by a verification (the list's or the tool's). */
  unverified: number;
  /** Of them, not an address by its syntax, or found invalid by the user's verification. */
  invalid: number;
  /** Of them, a role address (info@, sales@): `GENERIC_EMAILS`. */
  generic: number;
  /** Of them, suppressed (bounced, complained, unsubscribed): a drip campaign starts them stopped. */
  suppressed?: number;
  /** Whether the invalid ones are left out rather than sent to (a drip campaign stops them). */
  skipsInvalid?: boolean;
  /**
   * Earlier sends to these lists in the last `days` days, counted as the figures count
   * (contracts' figures.ts): messages are recipients of each send, each once (accepted,
   * refused or unknown); hard bounces and complaints are recipients too. Absent where there
   * are no lists (a drip campaign's own recipients).
   */
  recent?: { days: number; sends: number; messages: number; hardBounces: number; complaints: number };
};

/** From this share of unverified recipients (percent) the checklist asks to verify first. */
export const UNVERIFIED_WARN_PERCENT = 10;
/** From this share of role addresses (percent) the checklist says so. */
export const GENERIC_WARN_PERCENT = 10;
/** Past sends warn from this fraction of the breaker's line, before they reach it. */
const HISTORY_WARN_FRACTION = 0.5;

const share = (part: number, whole: number) => (whole === 0 ? 0 : (part * 100) / whole);
const number = (value: number) => value.toLocaleString('en-US');
const recipientsOf = (count: number) => counted(count, 'recipient');

const item = (
  id: string,
  title: string,
  status: TPreSendItem['status'],
  detail: string,
  advice: string | null = null,
): TPreSendItem => ({ id, group: 'lists', title, status, detail, advice });

/**
 * The audience's items: known-bad addresses, unverified ones, role addresses, suppressed
 * ones (a drip campaign's), and what past sends to these lists did against the account's
 * lines. `verifyWhere` says where this screen verifies ("Verify Your List", the wizard's
 * recipients step).
 */
export const audienceHealthItems = (
  facts: TAudienceFacts,
  lines: TBreakerLines = CIRCUIT_BREAKER,
  verifyWhere = 'Verify Your List on Mailing Lists',
): TPreSendItem[] => {
  const { recipients } = facts;
  const items: TPreSendItem[] = [];
  items.push(
    facts.invalid > 0 && facts.skipsInvalid
      ? item(
          'invalid',
          'Invalid addresses',
          'info',
          `${number(facts.invalid)} of ${recipientsOf(recipients)} ${pluralOf(facts.invalid, { one: 'was', other: 'were' })} found invalid by your verification: ${pluralOf(facts.invalid, { one: 'it starts', other: 'they start' })} stopped and ${pluralOf(facts.invalid, { one: 'gets', other: 'get' })} nothing.`,
        )
      : facts.invalid > 0
        ? item(
            'invalid',
            'Invalid addresses',
            'fail',
            `${number(facts.invalid)} of ${recipientsOf(recipients)} ${pluralOf(facts.invalid, { one: 'is', other: 'are' })} not a valid address (by its syntax, or your verification found ${pluralOf(facts.invalid, { one: 'it', other: 'them' })} invalid): each is a hard bounce.`,
            'Remove them before sending: hard bounces tell mailbox providers the list is not looked after.',
          )
        : item('invalid', 'Invalid addresses', 'pass', 'No recipient is known to be invalid.'),
  );
  const unverifiedShare = share(facts.unverified, recipients);
  items.push(
    facts.unverified === 0
      ? item('unverified', 'Unverified addresses', 'pass', 'Every recipient was verified.')
      : item(
          'unverified',
          'Unverified addresses',
          unverifiedShare >= UNVERIFIED_WARN_PERCENT ? 'warn' : 'info',
          `${number(facts.unverified)} of ${recipientsOf(recipients)} (${formatPercent(unverifiedShare)}) ${pluralOf(facts.unverified, { one: 'was', other: 'were' })} never verified.`,
          unverifiedShare >= UNVERIFIED_WARN_PERCENT
            ? `${SEND_MESSAGES.unverified} Verify them first (${verifyWhere}; one credit per address not checked before).`
            : null,
        ),
  );
  const genericShare = share(facts.generic, recipients);
  items.push(
    item(
      'generic',
      'Generic addresses',
      genericShare >= GENERIC_WARN_PERCENT ? 'warn' : 'pass',
      `${number(facts.generic)} of ${recipientsOf(recipients)} (${formatPercent(genericShare)}) ${pluralOf(facts.generic, { one: 'is a role address', other: 'are role addresses' })} such as info@ or sales@.`,
      genericShare >= GENERIC_WARN_PERCENT
        ? 'Role addresses reach a team who did not subscribe and complain more: consider leaving them out.'
        : null,
    ),
  );
  if (facts.suppressed !== undefined) {
    items.push(
      item(
        'suppressed',
        'Suppressed recipients',
        facts.suppressed > 0 ? 'info' : 'pass',
        facts.suppressed > 0
          ? `${recipientsOf(facts.suppressed)} bounced, complained or unsubscribed before: they start stopped and get nothing.`
          : 'No recipient is on your suppression list.',
      ),
    );
  }
  if (facts.recent) {
    items.push(recentSendsItem(facts.recent, lines));
  }
  return items;
};

/** Past sends to these lists against the account's lines: red over a line, yellow from half of it. */
const recentSendsItem = (recent: NonNullable<TAudienceFacts['recent']>, lines: TBreakerLines): TPreSendItem => {
  const title = 'Recent sends to these lists';
  if (recent.sends === 0 || recent.messages === 0) {
    return item('history', title, 'info', `No sends to these lists in the last ${counted(recent.days, 'day')}.`);
  }
  const bounces = share(recent.hardBounces, recent.messages);
  const complaints = share(recent.complaints, recent.messages);
  const isOver = bounces > lines.bouncePercent || complaints > lines.complaintPercent;
  const isNear =
    bounces > lines.bouncePercent * HISTORY_WARN_FRACTION ||
    complaints > lines.complaintPercent * HISTORY_WARN_FRACTION;
  const status = isOver ? 'fail' : isNear ? 'warn' : 'pass';
  return item(
    'history',
    title,
    status,
    `${counted(recent.sends, 'send')} in the last ${counted(recent.days, 'day')}: ${counted(recent.hardBounces, 'hard bounce')} (${formatPercent(bounces)}) and ${counted(recent.complaints, 'spam complaint')} (${formatPercent(complaints)}) of ${counted(recent.messages, 'message')}.`,
    status === 'pass'
      ? null
      : `A send past ${formatPercent(lines.bouncePercent)} hard bounces or ${formatPercent(lines.complaintPercent)} complaints (your account's limits) pauses itself: clean the lists before sending again.`,
  );
};
