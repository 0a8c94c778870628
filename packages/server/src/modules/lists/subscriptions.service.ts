import {
  CONFIRMATION_COOLDOWN_MINUTES,
  CONFIRMATION_TTL_HOURS,
  type TMemberConsent,
  UNCONFIRMED_KEPT_DAYS,
} from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { hashToken, randomToken } from '../../platform/tokens';
import type { TConsentInput, TLeaving } from './consent.repository';
import * as consents from './consent.repository';
import { findList, type TListRow } from './lists.repository';
import { emitMemberEvents, mailgunOfList, type TMemberEventSource, upsertAtProvider } from './lists.service';

/**
 * A member's subscription as the person changes it: a signup (a form, the API), the
 * confirmation of a double opt-in signup, an unsubscribe from one list. Each change is made
 * here and nowhere else, in one function per change, so whatever must follow a change (a
 * webhook to the user's systems) has one place to hook in. Each takes the caller's
 * transaction: a signup's confirmation email is queued in it.
 */

export type { TConsentInput } from './consent.repository';

export type TSignup = {
  /** In its canonical form (contracts `canonicalEmail`). */
  email: string;
  fullname: string;
  fields: Record<string, string>;
  consent: TConsentInput;
};

export type TSubscribeOutcome =
  /** On the list now (a single opt-in list). */
  | { kind: 'subscribed'; memberId: number }
  /** Waiting for its confirmation: mail `token` to the address (`consentId` records which email carried it). */
  | { kind: 'confirm'; memberId: number; consentId: number; token: string }
  /** Waiting, and a confirmation went out less than the cool-down ago: nothing is sent. */
  | { kind: 'waiting'; memberId: number }
  /** Subscribed already: nothing changes. */
  | { kind: 'already'; memberId: number };

export type TSignupList = Pick<TListRow, 'id' | 'user_id' | 'account_id' | 'double_opt_in'>;

const newConfirmation = (now: Date) => {
  const token = randomToken();
  return {
    token,
    confirmation: {
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_HOURS * 3_600_000),
      sentAt: now,
    },
  };
};

/**
 * Subscribes an address to a list, with the consent it came with. On a double opt-in list
 * the member is `unconfirmed` (never subscribed, so no send reaches it) until the link in
 * the confirmation email is opened; a second signup of the same address is the same member
 * and a new link, not sooner than the cool-down after the last (so a form cannot be used to
 * flood someone's inbox), never a second row. A signup never overwrites a member's name or
 * fields, only fills them: whoever typed the address has not shown it is theirs.
 */
export const subscribeMember = async (
  platform: TPlatform,
  trx: Executor,
  list: TSignupList,
  signup: TSignup,
  { source, now = new Date() }: { source: TMemberEventSource; now?: Date },
): Promise<TSubscribeOutcome> => {
  const outcome = await signUp(trx, list, signup, now);
  // On the list now: a `member.subscribed` webhook (a double opt-in signup waits for `member.confirmed`).
  if (outcome.kind === 'subscribed') {
    await emitMemberEvents(
      platform,
      trx,
      list.user_id,
      'member.subscribed',
      [{ list_id: list.id, email: signup.email, fullname: signup.fullname }],
      source,
    );
  }
  return outcome;
};

/** A consent that waits for its link: the confirmation's token to mail, its record beside the member. */
const askToConfirm = async (trx: Executor, list: TSignupList, memberId: number, signup: TSignup, now: Date) => {
  const { token, confirmation } = newConfirmation(now);
  const { id: consentId } = await consents.insertConsent(trx, {
    userId: list.user_id,
    listId: list.id,
    memberId,
    consent: signup.consent,
    confirmation,
  });
  return { kind: 'confirm', memberId, consentId, token } as const;
};

/** The signup's consent: standing at once on a single opt-in list, waiting for its link on a double opt-in one. */
const recordSignupConsent = async (
  trx: Executor,
  list: TSignupList,
  memberId: number,
  signup: TSignup,
  now: Date,
): Promise<TSubscribeOutcome> => {
  if (list.double_opt_in) return askToConfirm(trx, list, memberId, signup, now);
  await consents.insertConsent(trx, { userId: list.user_id, listId: list.id, memberId, consent: signup.consent });
  return { kind: 'subscribed', memberId };
};

const signUp = async (trx: Executor, list: TSignupList, signup: TSignup, now: Date): Promise<TSubscribeOutcome> => {
  const isDoubleOptIn = list.double_opt_in;
  let member = await consents.lockMemberByEmail(trx, list.id, signup.email);
  if (!member) {
    const inserted = await consents.insertSignedUpMember(trx, list, { ...signup, isConfirmed: !isDoubleOptIn });
    if (inserted) return recordSignupConsent(trx, list, inserted.id, signup, now);
    // Signed up by a request running beside this one: theirs is the row, this is a second signup.
    member = await consents.lockMemberByEmail(trx, list.id, signup.email);
    if (!member) throw new Error('A member inserted by another transaction is not there.');
  }
  if (member.subscribed) return { kind: 'already', memberId: member.id };
  if (member.unconfirmed) {
    await consents.updateSignedUpMember(trx, member.id, signup, null);
    const pending = await consents.lockPendingConsent(trx, member.id);
    const cooledDownAt = now.getTime() - CONFIRMATION_COOLDOWN_MINUTES * 60_000;
    if (pending?.confirmation_sent_at && pending.confirmation_sent_at.getTime() > cooledDownAt) {
      return { kind: 'waiting', memberId: member.id };
    }
    if (!pending) return askToConfirm(trx, list, member.id, signup, now);
    const { token, confirmation } = newConfirmation(now);
    await consents.renewConfirmation(trx, pending.id, signup.consent, confirmation);
    return { kind: 'confirm', memberId: member.id, consentId: pending.id, token };
  }
  // On the list but unsubscribed (or never subscribed): subscribes again, asked to confirm where the list asks.
  await consents.updateSignedUpMember(trx, member.id, signup, {
    subscribed: !isDoubleOptIn,
    unconfirmed: isDoubleOptIn,
  });
  return recordSignupConsent(trx, list, member.id, signup, now);
};

/** Which send carried a signup's confirmation email (shown with the consent record). */
export const recordConfirmationSend = (trx: Executor, consentId: number, sendId: number) =>
  consents.setConfirmationSend(trx, consentId, sendId);

export type TConfirmOutcome =
  | { kind: 'confirmed' | 'already' | 'pending'; listId: number; userId: number; listName: string; formKey: string }
  | { kind: 'expired'; listName: string; formKey: string }
  | { kind: 'invalid' };

/**
 * What a confirmation link finds, by one rule for the page and the button: a link works
 * while its signup waits and until it expires; the link of a signup cancelled since (the
 * member unsubscribed, by the user or by the person) opens nothing.
 */
const judgeConfirmation = (
  found: Awaited<ReturnType<typeof consents.findConsentByToken>>,
  now: Date,
): TConfirmOutcome => {
  if (!found) return { kind: 'invalid' };
  const list = { listId: found.list_id, userId: found.user_id, listName: found.list_name, formKey: found.form_key };
  if (found.confirmed_at || found.subscribed) return { kind: 'already', ...list };
  if (!found.unconfirmed) return { kind: 'invalid' };
  if (found.confirm_expires_at && found.confirm_expires_at.getTime() <= now.getTime()) {
    return { kind: 'expired', listName: found.list_name, formKey: found.form_key };
  }
  return { kind: 'pending', ...list };
};

/** What a confirmation link would do, changing nothing (the page before its button). */
export const findConfirmation = async (db: Executor, token: string, now = new Date()) =>
  judgeConfirmation(await consents.findConsentByToken(db, hashToken(token), { lock: false }), now);

/**
 * The person opened the confirmation link and pressed the button: the member is subscribed,
 * and the consent record says when and from where. A Mailgun list gets the member now, not
 * before.
 */
export const confirmSubscription = async (
  platform: TPlatform,
  trx: Executor,
  token: string,
  ip: string | null,
  now = new Date(),
): Promise<TConfirmOutcome> => {
  const found = await consents.findConsentByToken(trx, hashToken(token), { lock: true });
  const outcome = judgeConfirmation(found, now);
  if (outcome.kind !== 'pending' || !found) return outcome;
  await consents.markConfirmed(trx, found.id, found.member_id, ip);
  await emitMemberEvents(
    platform,
    trx,
    found.user_id,
    'member.confirmed',
    [{ list_id: found.list_id, email: found.email, fullname: found.fullname }],
    'form',
  );
  const listRow = await findList(trx, found.user_id, found.list_id);
  if (listRow) {
    await upsertAtProvider(await mailgunOfList(platform, trx, listRow), listRow, [
      { email: found.email, fullname: found.fullname, subscribed: true },
    ]);
  }
  return { ...outcome, kind: 'confirmed' };
};

/**
 * Members leave their lists, however it is asked: by id (the preferences page, the member
 * screen), or by address on one account's lists (an unsubscribe link or one-click POST, a
 * complaint: `unsubscribeEverywhere`) or on all the user's (the suppression screen). No
 * longer subscribed, and a signup still waiting for its confirmation is cancelled. With the
 * platform given, a Mailgun list gets the change too (a failure there undoes it). Answers
 * the members that changed.
 */
export const unsubscribeMembers = async (
  platform: TPlatform,
  trx: Executor,
  userId: number,
  leaving: TLeaving,
  source: TMemberEventSource,
  { syncProvider = true }: { syncProvider?: boolean } = {},
) => {
  const changed = await consents.leaveLists(trx, userId, leaving);
  // Each membership left is a `member.unsubscribed` webhook (a waiting signup cancelled is none).
  await emitMemberEvents(
    platform,
    trx,
    userId,
    'member.unsubscribed',
    changed.filter((member) => member.was_subscribed),
    source,
  );
  if (!syncProvider) return changed;
  for (const listId of new Set(changed.map((member) => member.list_id))) {
    const list = await findList(trx, userId, listId);
    if (!list) continue;
    await upsertAtProvider(
      await mailgunOfList(platform, trx, list),
      list,
      changed
        .filter((member) => member.list_id === listId)
        .map((member) => ({ email: member.email, fullname: member.fullname, subscribed: false })),
    );
  }
  return changed;
};

/** An address leaves every list of one sending account; answers how many memberships changed. */
export const unsubscribeFromAccountLists = async (
  platform: TPlatform,
  db: Executor,
  { userId, accountId, email }: { userId: number; accountId: number; email: string },
  source: TMemberEventSource,
) =>
  (await unsubscribeMembers(platform, db, userId, { emails: [email], accountId }, source, { syncProvider: false }))
    .length;

/** Addresses leave every list of the user; answers how many memberships changed. */
export const unsubscribeFromAllLists = async (
  platform: TPlatform,
  db: Executor,
  userId: number,
  emails: string[],
  source: TMemberEventSource,
) =>
  emails.length === 0
    ? 0
    : (await unsubscribeMembers(platform, db, userId, { emails }, source, { syncProvider: false })).length;

/** A consent record of its own for a member added another way (by hand, through the API). */
export const recordConsent = (
  trx: Executor,
  member: { userId: number; listId: number; memberId: number },
  consent: TConsentInput,
) => consents.insertConsent(trx, { ...member, consent });

const iso = (value: Date | null) => value?.toISOString() ?? null;

/** A member's consent records, newest first; the user's own members only (another's: none). */
export const consentOfMember = async (platform: TPlatform, userId: number, memberId: number) =>
  (await consents.findConsentsOfMember(platform.db, userId, memberId)).map(
    (row): TMemberConsent => ({
      source: row.source,
      detail: row.detail,
      agreed_at: row.agreed_at.toISOString(),
      ip: row.ip,
      user_agent: row.user_agent,
      consent_text: row.consent_text,
      confirmation_sent_at: iso(row.confirmation_sent_at),
      confirmed_at: iso(row.confirmed_at),
      confirmed_ip: row.confirmed_ip,
    }),
  );

/** The lists of one sending account an address is on (the preferences page). */
export const membershipsOnAccount = (db: Executor, userId: number, accountId: number, email: string) =>
  consents.findMembershipsOnAccount(db, userId, accountId, email);

/** The person's own name on these memberships (the preferences page). */
export const renameMembers = (db: Executor, userId: number, memberIds: number[], fullname: string) =>
  consents.renameMembers(db, userId, memberIds, fullname);

/**
 * The lists module's part of the hourly cleanup (R30, R47): signups never confirmed, whose
 * link expired more than `UNCONFIRMED_KEPT_DAYS` ago, are deleted with their consent
 * records (10,000 a run): an address nobody confirmed is not kept.
 */
export const cleanUpExpiredSignups = async (platform: TPlatform) => ({
  expiredSignups: await consents.deleteExpiredSignups(
    platform.db,
    new Date(Date.now() - UNCONFIRMED_KEPT_DAYS * 86_400_000),
    10_000,
  ),
});
