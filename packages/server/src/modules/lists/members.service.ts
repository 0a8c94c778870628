import {
  LIST_MESSAGES,
  type TMember,
  type ZAddMemberRequest,
  type ZBulkDeleteMembersRequest,
  type ZMemberQuery,
  type ZUpdateMemberRequest,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { queueSearchIndexing } from './lists.jobs';
import * as repository from './lists.repository';
import { mailgunOfList, removeAtProvider, requireList, upsertAtProvider } from './lists.service';
import { memberSearchWithin } from './member-search';
import { recordConsent, unsubscribeMembers } from './subscriptions.service';

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
    await trx
      .updateTable('list_members')
      .set({ fullname: request.fullname, updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', memberId)
      .execute();
    if (member.unconfirmed) return;
    if (!isSubscribed) {
      if (member.subscribed) await unsubscribeMembers(platform, trx, userId, { memberIds: [memberId] });
      return;
    }
    await trx
      .updateTable('list_members')
      .set({ subscribed: true, updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', memberId)
      .execute();
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
