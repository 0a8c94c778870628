import {
  cleanEmail,
  isGenericEmail,
  isValidEmail,
  LIST_MESSAGES,
  type TMailingList,
  type ZCreateListRequest,
  type ZDeleteListRequest,
  type ZListQuery,
  type ZPostCsvRequest,
  type ZUpdateListRequest,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { isUniqueViolation } from '../../platform/db';
import { fieldError, HttpError, notFound } from '../../platform/errors';
import { emitEvents } from '../../platform/outbound-events';
import { paginate } from '../../platform/paging';
import { TransportError } from '../../providers/mail';
import type { TMailgunLists } from '../../providers/mailgun-lists';
import { accountDomain, findAccountRow, openMailgunLists } from '../accounts/accounts.service';
import type { TOutboundEvent } from '../module';
import * as repository from './lists.repository';

const LIST_ADDRESS_INDEX = 'mailing_lists_address_key';

export const toList = (row: repository.TListRow): TMailingList => ({
  id: row.id,
  list_id: row.provider_address ?? row.address,
  account_id: row.account_id,
  account_name: row.account_name,
  provider: row.provider,
  address: row.address,
  alias: row.alias,
  domain: row.domain,
  name: row.name,
  description: row.description,
  mailing_list: row.address,
  members_count: row.members_count,
  subscribed: row.subscribed_count,
  verified_count: row.verified_count,
  unverified_subscribers_count: row.unverified_subscribers_count,
  verified: row.verify_status === 'verified',
  verify_status: row.verify_status,
  verified_at: row.verified_at?.toISOString() ?? null,
  double_opt_in: row.double_opt_in,
  created_at: row.created_at.toISOString(),
});

/** Turns a Mailgun failure into the answer the user sees; nothing here was changed. */
export const providerError = (error: unknown) =>
  error instanceof TransportError
    ? new HttpError(error.code === 'CONNECTION' ? 502 : 422, error.message, `MAILGUN_${error.code}`)
    : error;

/** One of the user's lists, or 404. */
export const requireList = async (db: Executor, userId: number, listId: number) => {
  const list = await repository.findList(db, userId, listId);
  if (!list) throw notFound('This mailing list does not exist.');
  return list;
};

const requireAccount = async (db: Executor, userId: number, accountId: number) => {
  const account = await findAccountRow(db, userId, accountId);
  if (!account) throw fieldError('accountId', 'This sending account does not exist.');
  return account;
};

const userEmail = async (db: Executor, userId: number) =>
  (await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email;

/** Mailgun's lists API for the account of a list, when it is a Mailgun account. */
export const mailgunOfList = async (platform: TPlatform, db: Executor, list: repository.TListRow) => {
  if (list.provider !== 'mailgun') return null;
  const account = await findAccountRow(db, list.user_id, list.account_id);
  return account ? openMailgunLists(platform, account) : null;
};

/** The generic local parts the operator configured (or the built-in list). */
export const genericNames = (platform: TPlatform) => new Set(platform.config.genericEmails);

export const listLists = (platform: TPlatform, userId: number, query: z.output<typeof ZListQuery>) => {
  let base = repository.listsQuery(platform.db, userId);
  if (query.account_id) base = base.where('mailing_lists.account_id', '=', query.account_id);
  return paginate(base, query, {
    sortColumns: {
      created_at: 'mailing_lists.created_at',
      address: 'mailing_lists.address',
      name: 'mailing_lists.name',
      members_count: 'mailing_lists.members_count',
      verified_count: 'mailing_lists.verified_count',
    },
    searchColumns: ['mailing_lists.address', 'mailing_lists.name'],
    tieBreaker: 'mailing_lists.id',
  }).then((page) => ({ ...page, data: page.data.map(toList) }));
};

const duplicateAddress = () => new HttpError(409, LIST_MESSAGES.listExists, 'LIST_EXISTS');

export const createList = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZCreateListRequest>,
): Promise<TMailingList> => {
  const account = await requireAccount(platform.db, userId, request.accountId);
  const domain = accountDomain(account, await userEmail(platform.db, userId));
  const address = `${request.alias}@${domain}`.toLowerCase();
  if (await repository.findListByAddress(platform.db, userId, account.id, address)) throw duplicateAddress();
  const mailgun = openMailgunLists(platform, account);
  if (mailgun) {
    try {
      await mailgun.createList({ address, name: request.name, description: request.description });
    } catch (error) {
      // A list Mailgun already has is adopted: Sync From Provider would bring it in anyway.
      if (!(error instanceof TransportError && /duplicate/i.test(error.message))) throw providerError(error);
    }
  }
  try {
    const { id } = await repository.insertList(platform.db, {
      user_id: userId,
      account_id: account.id,
      alias: request.alias,
      domain,
      address,
      name: request.name,
      description: request.description,
      provider_address: mailgun ? address : null,
    });
    return toList((await repository.findList(platform.db, userId, id))!);
  } catch (error) {
    if (isUniqueViolation(error, LIST_ADDRESS_INDEX)) throw duplicateAddress();
    throw error;
  }
};

export const updateList = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  request: z.output<typeof ZUpdateListRequest>,
) => {
  const list = await requireList(platform.db, userId, listId);
  const address = `${request.alias}@${list.domain}`.toLowerCase();
  if (address !== list.address.toLowerCase()) {
    const other = await repository.findListByAddress(platform.db, userId, list.account_id, address);
    if (other) throw duplicateAddress();
  }
  const mailgun = await mailgunOfList(platform, platform.db, list);
  if (mailgun && list.provider_address) {
    try {
      await mailgun.updateList(list.provider_address, {
        address,
        name: request.name,
        description: request.description,
      });
    } catch (error) {
      throw providerError(error);
    }
  }
  try {
    await repository.updateList(platform.db, userId, listId, {
      alias: request.alias,
      address,
      name: request.name,
      description: request.description,
      ...(list.provider_address ? { provider_address: address } : {}),
    });
  } catch (error) {
    if (isUniqueViolation(error, LIST_ADDRESS_INDEX)) throw duplicateAddress();
    throw error;
  }
};

/**
 * What uses a list (drip campaigns, scheduled emails), for the delete modal. The modules
 * that own those offer a check in their registration (`listUsageCheck`), so this module
 * does not reach into their tables.
 */
export type TListUsageCheck = (
  db: Executor,
  userId: number,
  listId: number,
) => Promise<{ type: 'drip' | 'scheduled'; id: number; name: string }[]>;
export const checkListUsage = async (
  platform: TPlatform,
  checks: TListUsageCheck[],
  userId: number,
  listId: number,
) => {
  await requireList(platform.db, userId, listId);
  const found = await Promise.all(checks.map((check) => check(platform.db, userId, listId)));
  return found.flat();
};

export const deleteList = async (platform: TPlatform, userId: number, request: z.output<typeof ZDeleteListRequest>) => {
  const list = await requireList(platform.db, userId, request.listId);
  if (request.deleteMailgun && list.provider_address) {
    const mailgun = await mailgunOfList(platform, platform.db, list);
    try {
      await mailgun?.deleteList(list.provider_address);
    } catch (error) {
      throw providerError(error);
    }
  }
  await repository.deleteList(platform.db, userId, list.id);
};

/**
 * Sync From Provider: every mailing list of a Mailgun account's key, with its members,
 * into Sendwell. Lists are matched by address, members by address; what Mailgun says
 * about a member's name and subscription wins.
 */
export const importListsFromProvider = async (platform: TPlatform, userId: number, accountId: number) => {
  const account = await requireAccount(platform.db, userId, accountId);
  const mailgun = openMailgunLists(platform, account);
  if (!mailgun) throw new HttpError(422, LIST_MESSAGES.syncNotMailgun, 'NOT_MAILGUN');
  let lists = 0;
  let members = 0;
  try {
    for await (const remote of mailgun.lists()) {
      const address = remote.address.toLowerCase();
      // The key may hold lists of other domains; the account brings in its own domain's.
      if (account.domain && !address.endsWith(`@${account.domain.toLowerCase()}`)) continue;
      const [alias = address, domain = account.domain ?? ''] = address.split('@');
      const listId = await platform.db.transaction().execute(async (trx) => {
        const found = await repository.findListByAddress(trx, userId, account.id, address);
        if (found) {
          await repository.updateList(trx, userId, found.id, {
            name: remote.name || found.name,
            description: remote.description,
            provider_address: address,
          });
          return found.id;
        }
        const inserted = await repository.insertList(trx, {
          user_id: userId,
          account_id: account.id,
          alias,
          domain,
          address,
          name: remote.name || alias,
          description: remote.description,
          provider_address: address,
        });
        return inserted.id;
      });
      lists += 1;
      for await (const page of mailgun.members(address)) {
        const valid = page.filter((member) => isValidEmail(cleanEmail(member.address)));
        await repository.upsertMembers(
          platform.db,
          { userId, listId, accountId: account.id },
          valid.map((member) => ({
            email: cleanEmail(member.address),
            fullname: member.name,
            subscribed: member.subscribed,
            fields: stringFields(member.vars),
          })),
          { setSubscribed: true, consent: { source: 'provider', detail: `Mailgun list ${address}`, ip: null } },
        );
        members += valid.length;
      }
    }
  } catch (error) {
    throw providerError(error);
  }
  return { lists, members };
};

const stringFields = (vars: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(vars)
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(([key, value]) => [key.slice(0, 64), typeof value === 'string' ? value : JSON.stringify(value)]),
  );

/**
 * The list's generic addresses (local part in the operator's list) still on it: subscribed,
 * or waiting for a double opt-in confirmation. In email order. Generic Email Control
 * unsubscribes them (`members.service` `unsubscribeGenericMembers`), so once done the
 * control finds none.
 */
export const findGenericEmails = async (platform: TPlatform, userId: number, listId: number) => {
  await requireList(platform.db, userId, listId);
  const names = [...genericNames(platform)];
  const rows = await platform.db
    .selectFrom('list_members')
    .select('email')
    .where('user_id', '=', userId)
    .where('list_id', '=', listId)
    .where((eb) => eb.or([eb('subscribed', '=', true), eb('unconfirmed', '=', true)]))
    .where(sql<string>`lower(split_part(email, '@', 1))`, 'in', names.length > 0 ? names : [''])
    .orderBy(sql`lower(email)`)
    .execute();
  return rows.map((row) => row.email);
};

/** Member removals reach the Mailgun list too; a failure there undoes the local change. */
export const removeAtProvider = async (mailgun: TMailgunLists | null, list: repository.TListRow, emails: string[]) => {
  if (!mailgun || !list.provider_address) return;
  try {
    for (const email of emails) await mailgun.deleteMember(list.provider_address, email);
  } catch (error) {
    throw providerError(error);
  }
};

/** Members added or changed here reach the Mailgun list too; a failure there undoes the local change. */
export const upsertAtProvider = async (
  mailgun: TMailgunLists | null,
  list: repository.TListRow,
  members: { email: string; fullname: string; subscribed: boolean }[],
) => {
  if (!mailgun || !list.provider_address || members.length === 0) return;
  try {
    await mailgun.upsertMembers(
      list.provider_address,
      members.map((member) => ({
        address: member.email,
        name: member.fullname,
        subscribed: member.subscribed,
        vars: {},
      })),
    );
  } catch (error) {
    throw providerError(error);
  }
};

/**
 * `POST /api/mailing-lists/ajax/post-csv`: rows the browser parsed (small files, the drip
 * wizard). Invalid addresses are skipped, generic ones too when asked, duplicates merged.
 */
export const importParsedRows = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZPostCsvRequest>,
  { ip = null }: { ip?: string | null } = {},
) => {
  const list = await repository.findListByAddress(platform.db, userId, request.account, request.address);
  if (!list) throw notFound('This mailing list does not exist.');
  const generic = genericNames(platform);
  let skipped = 0;
  const members: repository.TMemberUpsert[] = [];
  for (const row of request.data) {
    const email = cleanEmail(row.email);
    if (!isValidEmail(email) || (request.removeGeneric && isGenericEmail(email, generic))) {
      skipped += 1;
      continue;
    }
    members.push({ email, fullname: row.name.trim(), fields: row.fields ?? {} });
  }
  const unique = new Set(members.map((member) => member.email.toLowerCase())).size;
  const mailgun = await mailgunOfList(platform, platform.db, list);
  const counts = await platform.db.transaction().execute(async (trx) => {
    await repository.lockList(trx, userId, list.id);
    const written = await repository.upsertMembers(
      trx,
      { userId, listId: list.id, accountId: list.account_id },
      members,
      { consent: { source: 'import', detail: 'rows uploaded from a small file', ip } },
    );
    await upsertAtProvider(
      mailgun,
      list,
      members.map((member) => ({ email: member.email, fullname: member.fullname, subscribed: true })),
    );
    return written;
  });
  const result = { ...counts, skipped, duplicates: members.length - unique };
  // Verification after import is the verification module's (its `verifyImportedList` hook).
  const verify = platform.hooks.verifyImportedList;
  const verification =
    request.verify && verify && counts.added + counts.updated > 0 ? await verify(platform, userId, list.id) : null;
  return { ...result, verification };
};

/** Where a member event came from, as its webhook says (`source`). */
export type TMemberEventSource =
  | 'api'
  | 'app'
  | 'form'
  | 'unsubscribe-link'
  | 'preferences'
  | 'complaint'
  | 'provider'
  | 'suppression';

/**
 * Emits the webhook events of memberships that changed (issue 48 §3) in the transaction that
 * changed them, ordered per member: by the address, lower case, so a member's events on every
 * list arrive in the order they happened.
 */
export const emitMemberEvents = (
  platform: TPlatform,
  trx: Executor,
  userId: number,
  type: 'member.subscribed' | 'member.confirmed' | 'member.unsubscribed',
  rows: { list_id: number; email: string; fullname?: string; fields?: Record<string, string> }[],
  source: TMemberEventSource,
) =>
  emitEvents(
    platform,
    trx,
    rows.map(
      (row): TOutboundEvent => ({
        userId,
        type,
        orderingKey: row.email.toLowerCase(),
        data: {
          list_id: row.list_id,
          email: row.email,
          ...(row.fullname !== undefined ? { fullname: row.fullname } : {}),
          ...(row.fields !== undefined ? { fields: row.fields } : {}),
          source,
        },
      }),
    ),
  );

/** For other modules' set-based work (a send's snapshot, unsubscribing everywhere) and the Send Email page. */
export {
  audienceFacts,
  countAudience,
  findListsByIds,
  findListsOfAccount,
  findMemberships,
  findUnverifiedEmails,
  markMembersVerified,
  onAnyListOf,
  setVerifyStatus,
  subscribedMembersOf,
} from './lists.repository';
