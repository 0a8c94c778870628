import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db';
import type { SendingAccountsTable } from '../../platform/db-schema';
import { hasRows } from '../../platform/queries';

export const listAccountRows = (db: Executor, userId: number) =>
  db.selectFrom('sending_accounts').selectAll().where('user_id', '=', userId).orderBy('id').execute();

/** One of the user's accounts, or nothing: another user's id finds nothing. */
export const findAccountRow = (db: Executor, userId: number, id: number) =>
  db.selectFrom('sending_accounts').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();

export type TAccountRow = NonNullable<Awaited<ReturnType<typeof findAccountRow>>>;

/** Any user's account by id: for the operator, who acts on every user's accounts. */
export const findAnyAccountRow = (db: Executor, id: number) =>
  db.selectFrom('sending_accounts').selectAll().where('id', '=', id).executeTakeFirst();

/** The operator's daily cap of an account (null: the user's own Maximum Email per Day holds). */
export const setOperatorMailPerDay = (db: Executor, id: number, cap: number | null) =>
  db
    .updateTable('sending_accounts')
    .set({ operator_mail_per_day: cap, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();

export const insertAccountRow = (db: Executor, row: Insertable<SendingAccountsTable>) =>
  db.insertInto('sending_accounts').values(row).returning('id').executeTakeFirstOrThrow();

export const updateAccountRow = (db: Executor, userId: number, id: number, changes: Updateable<SendingAccountsTable>) =>
  db
    .updateTable('sending_accounts')
    .set({ ...changes, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();

export const clearPrimary = (db: Executor, userId: number, exceptId: number) =>
  db
    .updateTable('sending_accounts')
    .set({ is_primary: false, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '!=', exceptId)
    .where('is_primary', '=', true)
    .execute();

export const hasPrimary = (db: Executor, userId: number) =>
  hasRows(db.selectFrom('sending_accounts').where('user_id', '=', userId).where('is_primary', '=', true));

export const deleteAccountRow = (db: Executor, userId: number, id: number) =>
  db.deleteFrom('sending_accounts').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();

/**
 * Which kinds of sending account the user has: Gmail (a Google sign-in, or an app password
 * through Gmail's SMTP service) and other SMTP servers (the test inbox among them). One
 * account is one kind; Mailgun accounts are neither.
 */
export const findAccountKinds = async (db: Executor, userId: number) => {
  const isGmail = sql<boolean>`provider = 'google' or driver = 'gmail'`;
  const row = await db
    .selectFrom('sending_accounts')
    .select([
      sql<boolean>`coalesce(bool_or(provider = 'smtp' and not (${isGmail})), false)`.as('hasSmtp'),
      sql<boolean>`coalesce(bool_or(${isGmail}), false)`.as('hasGmail'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row;
};

/** A Mailgun account's sealed webhook signing key, by the account id a webhook's URL names. */
export const findSealedWebhookKey = (db: Executor, accountId: number) =>
  db
    .selectFrom('sending_accounts')
    .select(['id', 'webhook_key_encrypted'])
    .where('id', '=', accountId)
    .where('provider', '=', 'mailgun')
    .executeTakeFirst();

/** The user each of these accounts belongs to (accounts deleted since are missing). */
export const findAccountOwners = async (db: Executor, accountIds: number[]) =>
  new Map(
    (
      await db
        .selectFrom('sending_accounts')
        .select(['id', 'user_id'])
        .where('id', 'in', accountIds.length > 0 ? accountIds : [0])
        .execute()
    ).map((row) => [row.id, row.user_id]),
  );
