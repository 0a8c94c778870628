import {
  canonicalEmail,
  LIST_MESSAGES,
  type TBulkMembersResponse,
  type TMember,
  type ZAddMemberRequest,
  type ZBulkDeleteMembersRequest,
  type ZBulkMembersRequest,
  type ZMemberQuery,
  type ZUpdateMemberRequest,
  type ZUpsertMemberRequest,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { queueSearchIndexing } from './lists.jobs';
import * as repository from './lists.repository';
import {
  emitMemberEvents,
  findGenericEmails,
  mailgunOfList,
  removeAtProvider,
  requireList,
  type TMemberEventSource,
  upsertAtProvider,
} from './lists.service';
import { memberSearchWithin } from './member-search';
import { findFormList } from './signup-form.service';
import { recordConfirmationSend, recordConsent, subscribeMember, unsubscribeMembers } from './subscriptions.service';

export const toMember = (row: repository.TMemberRow): TMember => ({
  id: row.id,
  email: row.email,
  fullname: row.fullname,
  subscribe: row.subscribed ? 1 : 0,
  verified: row.verified,
  verified_at: row.verified_at?.toISOString() ?? null,
  list_id: row.list_id,
  account_id: row.account_id,
  fields: row.fields,
  unconfirmed: row.unconfirmed,
  created_at: row.created_at.toISOString(),
});

/** The member table: the list's maintained counter is the total unless a search narrows it. */
export const listMembers = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  query: z.output<typeof ZMemberQuery>,
) => {
  const list = await requireList(platform.db, userId, listId);
  const page = await paginate(repository.membersQuery(platform.db, userId, listId), query, {
    sortColumns: {
      email: sql`lower(list_members.email)`,
      fullname: 'list_members.fullname',
      subscribe: 'list_members.subscribed',
      verified: 'list_members.verified',
      created_at: 'list_members.created_at',
    },
    searchColumns: ['list_members.email', 'list_members.fullname'],
    searchWithin: memberSearchWithin(listId),
    tieBreaker: 'list_members.id',
    knownTotal: list.members_count,
  });
  return { ...page, data: page.data.map(toMember) };
};

const requireMember = async (platform: TPlatform, userId: number, memberId: number) => {
  const member = await repository.findMember(platform.db, userId, memberId);
  if (!member) throw notFound('This member does not exist.');
  return member;
};

export const getMember = async (platform: TPlatform, userId: number, memberId: number) =>
  toMember(await requireMember(platform, userId, memberId));

/**
 * Name and subscription change; the email is read-only (spec §5). A member who has not
 * confirmed a double opt-in signup keeps waiting: only the person can confirm (from the
 * email), so `subscribe: 1` is refused, and a name change alone leaves the signup as it is.
 * Unsubscribing such a member cancels the signup.
 */
export const updateMember = async (
  platform: TPlatform,
  userId: number,
  memberId: number,
  request: z.output<typeof ZUpdateMemberRequest>,
) => {
  const member = await requireMember(platform, userId, memberId);
  const list = await requireList(platform.db, userId, member.list_id);
  const isSubscribed = request.subscribe === 1;
  if (member.unconfirmed && isSubscribed) {
    throw new HttpError(409, LIST_MESSAGES.memberUnconfirmed, 'MEMBER_UNCONFIRMED');
  }
  const mailgun = await mailgunOfList(platform, platform.db, list);
  await platform.db.transaction().execute(async (trx) => {
    const before = await repository.lockMembersByEmail(trx, list.id, [member.email]);
    // Asked on, the member is not waiting for its confirmation (refused above): name and subscription in one write.
    await repository.updateMember(trx, userId, memberId, {
      fullname: request.fullname,
      ...(isSubscribed ? { subscribed: true } : {}),
    });
    if (member.unconfirmed) return;
    if (!isSubscribed) {
      if (member.subscribed) await unsubscribeMembers(platform, trx, userId, { memberIds: [memberId] }, 'app');
      return;
    }
    if (!before[0]?.subscribed) {
      await emitMemberEvents(
        platform,
        trx,
        userId,
        'member.subscribed',
        [{ list_id: list.id, email: member.email, fullname: request.fullname }],
        'app',
      );
    }
    await upsertAtProvider(mailgun, list, [{ email: member.email, fullname: request.fullname, subscribed: true }]);
  });
};

/** A member added by hand; its consent record says so, with the address the user added it from. */
export const addMember = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZAddMemberRequest>,
  { ip = null }: { ip?: string | null } = {},
) => {
  const list = await requireList(platform.db, userId, request.listId);
  const mailgun = await mailgunOfList(platform, platform.db, list);
  const id = await platform.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('list_members')
      .values({
        user_id: userId,
        list_id: list.id,
        account_id: list.account_id,
        email: request.email,
        fullname: request.fullname,
        subscribed: request.subscribe === 1,
      })
      .onConflict((conflict) => conflict.expression(sql`list_id, lower(email)`).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw new HttpError(409, LIST_MESSAGES.memberExists, 'MEMBER_EXISTS');
    await recordConsent(
      trx,
      { userId, listId: list.id, memberId: inserted.id },
      { source: 'manual', detail: 'added by hand', ip, userAgent: null, text: '' },
    );
    if (request.subscribe === 1) {
      await emitMemberEvents(
        platform,
        trx,
        userId,
        'member.subscribed',
        [{ list_id: list.id, email: request.email, fullname: request.fullname }],
        'app',
      );
    }
    await upsertAtProvider(mailgun, list, [
      { email: request.email, fullname: request.fullname, subscribed: request.subscribe === 1 },
    ]);
    return inserted.id;
  });
  await queueSearchIndexing(platform, list.id).catch((error: unknown) =>
    platform.log.error({ err: error }, 'could not queue member search indexing'),
  );
  return getMember(platform, userId, id);
};

/** Removes a member here, and at Mailgun too unless `deleteMailgun` is false (spec §7). */
export const deleteMember = async (
  platform: TPlatform,
  userId: number,
  { listId, memberId, deleteMailgun }: { listId: number; memberId: number; deleteMailgun: boolean },
) => {
  const list = await requireList(platform.db, userId, listId);
  const mailgun = deleteMailgun ? await mailgunOfList(platform, platform.db, list) : null;
  await platform.db.transaction().execute(async (trx) => {
    const deleted = await repository.deleteMembers(trx, userId, listId, [memberId]);
    if (deleted.length === 0) throw notFound('This member does not exist.');
    await removeAtProvider(
      mailgun,
      list,
      deleted.map((row) => row.email),
    );
  });
};

export const bulkDeleteMembers = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZBulkDeleteMembersRequest>,
) => {
  const list = await requireList(platform.db, userId, request.listId);
  const mailgun = await mailgunOfList(platform, platform.db, list);
  return platform.db.transaction().execute(async (trx) => {
    const deleted = await repository.deleteMembers(trx, userId, list.id, [...new Set(request.memberId)]);
    if (deleted.length === 0) throw notFound('None of these members is on this list.');
    await removeAtProvider(
      mailgun,
      list,
      deleted.map((row) => row.email),
    );
    return deleted.length;
  });
};

// --- members by address: the integrators' calls (issue 48 §2) ---

/** How long the search index waits after members are added by address (a burst of bulk calls is indexed once, after it). */
const SEARCH_INDEX_DELAY_MS = 5_000;

/** A member as a call gives it: what is not given is left as it is (a new address is subscribed). */
export type TMemberInput = { email: string; fullname?: string; fields?: Record<string, string>; subscribed?: boolean };

/**
 * Adds addresses to a list or updates the members there: the one function every add by
 * address goes through (the API's add-or-update and its bulk call), in one transaction. A
 * given name replaces the stored one, fields are merged. The subscription:
 *
 * - asked off (`subscribed: false`): the member leaves through `unsubscribeMembers` (the
 *   one way a member leaves: its webhook, Mailgun, a waiting signup cancelled);
 * - asked on, or a new address: on a single opt-in list subscribed at once
 *   (`member.subscribed`); on a double opt-in list through `subscribeMember`, as a form's
 *   signup: `unconfirmed`, its confirmation email queued in this transaction (the signup
 *   module's, through the `sendSignupConfirmation` hook), `member.confirmed` when the link is
 *   opened; an address subscribed already stays as it is.
 *
 * The caller gives one row per address. Answers each row's member and whether it was new,
 * and how many confirmations were sent.
 */
export const saveMembers = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  members: TMemberInput[],
  { source, ip = null }: { source: TMemberEventSource; ip?: string | null },
) => {
  const list = await requireList(platform.db, userId, listId);
  const isDoubleOptIn = list.double_opt_in;
  const sendConfirmation = platform.hooks.sendSignupConfirmation;
  if (isDoubleOptIn && !sendConfirmation) throw new Error('No module mails signup confirmations.');
  const mailgun = await mailgunOfList(platform, platform.db, list);
  const target = { userId, listId: list.id, accountId: list.account_id };
  const wantsOn = (member: TMemberInput) => member.subscribed !== false;
  // Written directly as subscribed only on a single opt-in list, when asked; everything else
  // keeps its subscription here (a new address off) and changes below, through the one way.
  const rowOf = (member: TMemberInput, subscribed: boolean) => ({
    email: member.email,
    fullname: member.fullname ?? '',
    fields: member.fields ?? {},
    subscribed,
  });
  const saved = await platform.db.transaction().execute(async (trx) => {
    const subscribedNow = isDoubleOptIn ? [] : members.filter((member) => member.subscribed === true);
    const rest = members.filter((member) => !subscribedNow.includes(member));
    const rows = [
      ...(await repository.saveMemberRows(
        trx,
        target,
        subscribedNow.map((member) => rowOf(member, true)),
        { setSubscribed: true },
      )),
      ...(await repository.saveMemberRows(
        trx,
        target,
        rest.map((member) => rowOf(member, !isDoubleOptIn && wantsOn(member))),
        { setSubscribed: false },
      )),
    ];
    const asked = new Map(members.map((member) => [member.email.toLowerCase(), member]));
    const askedOf = (row: { email: string }) => asked.get(row.email.toLowerCase())!;
    const leaving = rows.filter((row) => !wantsOn(askedOf(row)) && (row.subscribed || row.unconfirmed));
    if (leaving.length > 0) {
      await unsubscribeMembers(platform, trx, userId, { memberIds: leaving.map((row) => row.id) }, source);
    }
    let confirmations = 0;
    if (isDoubleOptIn) {
      const formList = await findFormList(trx, userId, list.id);
      for (const row of rows) {
        const member = askedOf(row);
        // A new address, or one asked on that is not on the list: asked to confirm.
        if (row.subscribed || !wantsOn(member) || (!row.inserted && member.subscribed !== true)) continue;
        const signup = { email: row.email, fullname: row.fullname, fields: row.fields };
        const outcome = await subscribeMember(
          platform,
          trx,
          list,
          { ...signup, consent: { source: 'api', detail: 'added through the API', ip, userAgent: null, text: '' } },
          { source },
        );
        if (outcome.kind !== 'confirm') continue;
        const sendId = await sendConfirmation!(platform, trx, formList!, signup, outcome.token);
        await recordConfirmationSend(trx, outcome.consentId, sendId);
        confirmations += 1;
      }
    } else {
      await emitMemberEvents(
        platform,
        trx,
        userId,
        'member.subscribed',
        rows.filter((row) => row.subscribed && row.was_subscribed !== true),
        source,
      );
    }
    await upsertAtProvider(
      mailgun,
      list,
      rows
        .filter((row) => !leaving.includes(row))
        .map((row) => ({ email: row.email, fullname: row.fullname, subscribed: row.subscribed })),
    );
    return { rows, confirmations };
  });
  if (saved.rows.some((row) => row.inserted)) {
    await queueSearchIndexing(platform, list.id, { delayMs: SEARCH_INDEX_DELAY_MS }).catch((error: unknown) =>
      platform.log.error({ err: error }, 'could not queue member search indexing'),
    );
  }
  return {
    members: new Map(saved.rows.map((row) => [row.email.toLowerCase(), { id: row.id, created: row.inserted }])),
    confirmations: saved.confirmations,
  };
};

/** `PUT /api/mailing-lists/{listId}/members`: one address, added or updated. */
export const upsertMember = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  request: z.output<typeof ZUpsertMemberRequest>,
  source: TMemberEventSource,
) => {
  const saved = await saveMembers(platform, userId, listId, [request], { source });
  const { id, created } = saved.members.get(request.email.toLowerCase())!;
  return { member: await getMember(platform, userId, id), created, confirmationSent: saved.confirmations > 0 };
};

/** Custom field names as an import maps them (the merge fields `{{name}}` reads). */
const FIELD_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** Why a bulk row cannot be saved, or null: each row is read as the single call reads it. */
const bulkRowProblem = (row: z.output<typeof ZBulkMembersRequest>['members'][number]) => {
  if ((row.fullname ?? '').trim().length > 200) return 'The name may be at most 200 characters.';
  const fields = Object.entries(row.fields ?? {});
  if (fields.length > 50) return 'A member may have at most 50 custom fields.';
  for (const [name, value] of fields) {
    if (!FIELD_NAME.test(name))
      return `The custom field name ${JSON.stringify(name.slice(0, 64))} may hold letters, digits and _ only.`;
    if (value.length > 1000) return `The custom field ${name} may be at most 1,000 characters.`;
  }
  return null;
};

/**
 * `POST /api/mailing-lists/{listId}/members/bulk`: up to 10,000 members in one call and one
 * transaction, through `saveMembers`; a row that is not valid is reported and the others are
 * saved; a repeated address (any case) counts once, the first row's.
 */
export const bulkSaveMembers = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  request: z.output<typeof ZBulkMembersRequest>,
  source: TMemberEventSource,
): Promise<TBulkMembersResponse> => {
  await requireList(platform.db, userId, listId);
  const seen = new Set<string>();
  const accepted: TMemberInput[] = [];
  const pending = request.members.map((row) => {
    const email = canonicalEmail(row.email);
    if (email === null) return { email: row.email, result: 'invalid' as const, message: LIST_MESSAGES.emailInvalid };
    const problem = bulkRowProblem(row);
    if (problem) return { email, result: 'invalid' as const, message: problem };
    const key = email.toLowerCase();
    if (seen.has(key)) return { email, result: 'duplicate' as const };
    seen.add(key);
    accepted.push({
      email,
      ...(row.fullname !== undefined ? { fullname: row.fullname.trim() } : {}),
      ...(row.fields !== undefined ? { fields: row.fields } : {}),
      ...(row.subscribed !== undefined ? { subscribed: row.subscribed } : {}),
    });
    return { email, result: 'saved' as const };
  });
  const saved =
    accepted.length > 0
      ? await saveMembers(platform, userId, listId, accepted, { source })
      : { members: new Map<string, { created: boolean }>(), confirmations: 0 };
  const results = pending.map((row) =>
    row.result === 'saved'
      ? {
          email: row.email,
          result: saved.members.get(row.email.toLowerCase())?.created ? ('added' as const) : ('updated' as const),
        }
      : row,
  );
  const counts = { added: 0, updated: 0, invalid: 0, duplicate: 0, confirmations: saved.confirmations };
  for (const row of results) counts[row.result] += 1;
  return {
    status: counts.added + counts.updated > 0,
    message: `${counts.added} added, ${counts.updated} updated, ${counts.invalid} not valid, ${counts.duplicate} repeated.${counts.confirmations > 0 ? ` ${counts.confirmations} asked to confirm.` : ''}`,
    counts,
    results,
  };
};

/** `POST /api/mailing-lists/{listId}/members/unsubscribe`: the address stays on the list, unsubscribed. */
export const unsubscribeMember = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  email: string,
  source: TMemberEventSource,
) => {
  const list = await requireList(platform.db, userId, listId);
  return platform.db.transaction().execute(async (trx) => {
    const [member] = await repository.lockMembersByEmail(trx, list.id, [email]);
    if (!member) throw notFound('This address is not on the list.');
    // The one way a member leaves (`subscriptions.service.ts`): the webhook, Mailgun, a waiting signup cancelled.
    const changed = await unsubscribeMembers(platform, trx, userId, { memberIds: [member.id] }, source);
    return changed.some((row) => row.was_subscribed);
  });
};

/**
 * The members of one list with these addresses leave it (stay on it, unsubscribed), in one
 * transaction, through the one way a member leaves (`subscriptions.service.ts`: webhooks,
 * Mailgun, a waiting signup cancelled). Answers the members changed.
 */
const unsubscribeByEmail = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  emails: string[],
  source: TMemberEventSource,
) => {
  if (emails.length === 0) return [];
  return platform.db.transaction().execute(async (trx) => {
    const members = await repository.lockMembersByEmail(trx, listId, emails);
    if (members.length === 0) return [];
    return unsubscribeMembers(platform, trx, userId, { memberIds: members.map((member) => member.id) }, source);
  });
};

/**
 * Generic Email Control (spec §5, `POST /api/mailing-lists/clear-generic-emails`): the
 * list's generic members (all of them, or those named that are generic) are unsubscribed,
 * not deleted: they stay on the list with their history and consent, get nothing more, and
 * a Mailgun list is told too (its failure undoes the change). Answers how many left.
 */
export const unsubscribeGenericMembers = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  only: string[] | undefined,
) => {
  const list = await requireList(platform.db, userId, listId);
  const generic = await findGenericEmails(platform, userId, listId);
  const wanted = only ? new Set(only.map((email) => email.toLowerCase())) : null;
  const emails = wanted ? generic.filter((email) => wanted.has(email.toLowerCase())) : generic;
  return (await unsubscribeByEmail(platform, userId, list.id, emails, 'app')).length;
};

/**
 * These addresses leave one list (stay on it, unsubscribed): the verify-lists upsell leaves
 * out the addresses its verification found invalid. Answers how many were subscribed there.
 */
export const unsubscribeFromList = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  emails: string[],
  source: TMemberEventSource,
) => {
  if (emails.length === 0) return 0;
  const list = await requireList(platform.db, userId, listId);
  const changed = await unsubscribeByEmail(platform, userId, list.id, emails, source);
  return changed.filter((member) => member.was_subscribed).length;
};

/** `POST /api/mailing-lists/{listId}/members/remove`: the address leaves the list (and its Mailgun list). */
export const removeMember = async (platform: TPlatform, userId: number, listId: number, email: string) => {
  const list = await requireList(platform.db, userId, listId);
  const mailgun = await mailgunOfList(platform, platform.db, list);
  await platform.db.transaction().execute(async (trx) => {
    const deleted = await repository.deleteMemberByEmail(trx, userId, list.id, email);
    if (deleted.length === 0) throw notFound('This address is not on the list.');
    await removeAtProvider(
      mailgun,
      list,
      deleted.map((row) => row.email),
    );
  });
};
