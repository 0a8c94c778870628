import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { isAddress } from '../../platform/queries';

/** The tables of links sent by email that work once, until they expire. */
type TLinkTable = 'password_resets' | 'email_changes';

/** The link still works: not used (or spent by a later one) and not expired. */
export const isUsableLink = (table: TLinkTable) =>
  sql<boolean>`${sql.ref(`${table}.used_at`)} is null and ${sql.ref(`${table}.expires_at`)} > ${new Date()}`;

/** Spends the links the caller's condition picks that still work unused (one used earlier keeps its time). */
export const spendLinks = (db: Executor, table: TLinkTable) =>
  db.updateTable(table).set({ used_at: new Date(), updated_at: new Date() }).where('used_at', 'is', null);

/** Users with their plan and their credit balance (none before the first credit moves). */
const usersWithPlan = (db: Executor) =>
  db
    .selectFrom('users')
    .innerJoin('plans', 'plans.id', 'users.plan_id')
    .leftJoin('credit_balances', 'credit_balances.user_id', 'users.id');

/** The user with what `GET /api/user-information` shows. */
export const findUserInformation = (db: Executor, userId: number) =>
  usersWithPlan(db)
    .select([
      'users.id',
      'users.name',
      'users.email',
      'users.time_zone',
      'users.role',
      'plans.id as plan_id',
      'plans.name as plan_name',
      'plans.is_free as plan_is_free',
      'credit_balances.balance',
      'credit_balances.used',
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();

export const findUserByEmail = (db: Executor, email: string) =>
  db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'password_hash', 'disabled_at'])
    .where(isAddress(email))
    .executeTakeFirst();

export const insertUser = (
  db: Executor,
  user: { name: string; email: string; passwordHash: string; planId: number; timeZone?: string; referredBy?: string },
) =>
  db
    .insertInto('users')
    .values({
      name: user.name,
      email: user.email,
      password_hash: user.passwordHash,
      plan_id: user.planId,
      referred_by: user.referredBy ?? null,
      ...(user.timeZone ? { time_zone: user.timeZone } : {}),
    })
    .returning(['id', 'name', 'email'])
    .executeTakeFirstOrThrow();

export const updatePasswordHash = (db: Executor, userId: number, passwordHash: string) =>
  db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: new Date() })
    .where('id', '=', userId)
    .executeTakeFirst();

export const deleteSession = (db: Executor, idHash: Buffer) =>
  db.deleteFrom('sessions').where('id_hash', '=', idHash).executeTakeFirst();

/** Ends every session of a user (password changed); returns their ids to close sockets. */
export const deleteUserSessions = (db: Executor, userId: number) =>
  db.deleteFrom('sessions').where('user_id', '=', userId).returning('id_hash').execute();

export const deleteExpiredSessions = (db: Executor) =>
  db.deleteFrom('sessions').where('expires_at', '<', new Date()).executeTakeFirst();

export const insertPasswordReset = (db: Executor, reset: { userId: number; tokenHash: Buffer; expiresAt: Date }) =>
  db
    .insertInto('password_resets')
    .values({ user_id: reset.userId, token_hash: reset.tokenHash, expires_at: reset.expiresAt })
    .execute();

/** Locks the reset row so two requests with one link cannot both use it. */
export const findUsablePasswordResetForUpdate = (db: Executor, tokenHash: Buffer) =>
  db
    .selectFrom('password_resets')
    .select(['id', 'user_id'])
    .where('token_hash', '=', tokenHash)
    .where(isUsableLink('password_resets'))
    .forUpdate()
    .executeTakeFirst();

/** Using one link spends every open link of that user. */
export const markPasswordResetsUsed = (db: Executor, userId: number) =>
  spendLinks(db, 'password_resets').where('user_id', '=', userId).execute();

export const deleteOldPasswordResets = (db: Executor) =>
  db
    .deleteFrom('password_resets')
    .where('expires_at', '<', new Date(Date.now() - 86_400_000))
    .executeTakeFirst();

/** The user, when they have the operator role and are not disabled; else undefined. */
export const findOperator = (db: Executor, userId: number) =>
  db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('id', '=', userId)
    .where('role', '=', 'operator')
    .where('disabled_at', 'is', null)
    .executeTakeFirst();

export const setRole = (db: Executor, userId: number, role: 'user' | 'operator') =>
  db.updateTable('users').set({ role, updated_at: new Date() }).where('id', '=', userId).executeTakeFirst();

export const setDisabled = (db: Executor, userId: number, disabled: boolean) =>
  db
    .updateTable('users')
    .set({ disabled_at: disabled ? new Date() : null, updated_at: new Date() })
    .where('id', '=', userId)
    .executeTakeFirst();

/** Users as the operator area lists them: plan, credits, role, disabled. */
export const selectUsersForOperator = (db: Executor) =>
  usersWithPlan(db).select([
    'users.id',
    'users.email',
    'users.name',
    'users.role',
    'users.disabled_at',
    'users.created_at',
    'plans.id as plan_id',
    'plans.name as plan_name',
    'credit_balances.balance',
    'credit_balances.used',
  ]);
