import {
  OPERATOR_ACCOUNT_MESSAGES,
  type TCreditChange,
  type TDailyCapChange,
  type TOperatorAccount,
  type TOperatorPlan,
  type TPlanInput,
  type TSystemStatus,
  type ZAuditQuery,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { isUniqueViolation } from '../../platform/db';
import { fieldError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { countLiveProcesses } from '../../platform/presence';
import { accountRowsOfUser, findAccountForOperator, setOperatorDailyCap } from '../accounts/accounts.service';
import { endUserSessions, findUserForOperator, setDisabled } from '../auth/auth.service';
import { changeCredits, removeCredits } from '../credits/credits.service';
import { dailyCapOf, isDailyCapped, sentInWindow } from '../delivery/delivery.service';
import { findPlan, insertPlan, listPlansWithUsers, setUserPlan, updatePlan } from '../plans/plans.service';
import { resolverStatus } from '../system/resolver-health.service';
import { probeStatus } from '../verification/verification.service';
import * as repository from './operator.repository';

/**
 * The operator area's actions. Each one changes what it changes and writes its audit entry
 * in one transaction: there is no operator action without its record.
 */

export type TOperator = { id: number; email: string };
/** Who an audit entry names: an operator of the web area, or the admin CLI (no user id). */
export type TActor = { id: number | null; email: string };

const audited = <T>(
  platform: TPlatform,
  operator: TActor,
  entry: Omit<repository.TAuditEntry, 'operatorId' | 'operatorEmail'>,
  change: (trx: Executor) => Promise<T>,
) =>
  platform.db.transaction().execute(async (trx) => {
    const result = await change(trx);
    await repository.insertAudit(trx, { ...entry, operatorId: operator.id, operatorEmail: operator.email });
    return result;
  });

/** Audits an action done elsewhere (a ticket answer, an announcement) after it succeeded. */
export const audit = (
  platform: TPlatform,
  operator: TOperator,
  entry: Omit<repository.TAuditEntry, 'operatorId' | 'operatorEmail'>,
) => repository.insertAudit(platform.db, { ...entry, operatorId: operator.id, operatorEmail: operator.email });

export const changeUserCredits = async (
  platform: TPlatform,
  operator: TOperator,
  userId: number,
  change: TCreditChange,
) => {
  await findUserForOperator(platform.db, userId);
  await audited(
    platform,
    operator,
    { action: `credits.${change.action}`, targetType: 'user', targetId: userId, details: change },
    (trx) =>
      change.action === 'grant'
        ? changeCredits(trx, { userId, type: 'one-time-credit', quantity: change.amount, reference: change.reason })
        : removeCredits(trx, { userId, type: 'mon-balance-remove', amount: change.amount, reference: change.reason }),
  );
  return findUserForOperator(platform.db, userId);
};

export const changeUserPlan = async (platform: TPlatform, operator: TOperator, userId: number, planId: number) => {
  const before = await findUserForOperator(platform.db, userId);
  const plan = await findPlan(platform.db, planId);
  if (!plan) throw fieldError('planId', 'This plan does not exist.');
  await audited(
    platform,
    operator,
    { action: 'user.plan', targetType: 'user', targetId: userId, details: { from: before.plan.id, to: planId } },
    (trx) => setUserPlan(trx, userId, planId),
  );
  return findUserForOperator(platform.db, userId);
};

type TAccountRow = NonNullable<Awaited<ReturnType<typeof findAccountForOperator>>>;

const toOperatorAccount = async (platform: TPlatform, row: TAccountRow): Promise<TOperatorAccount> => {
  const cap = dailyCapOf(row);
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    driver: row.driver,
    host: row.host,
    capped: cap !== null,
    mail_per_day: row.mail_per_day,
    operator_mail_per_day: row.operator_mail_per_day,
    daily_cap: cap,
    sent_today: cap === null ? 0 : await sentInWindow(platform.db, row.id),
  };
};

/** A user's sending accounts with what caps each a day. */
export const listUserAccounts = async (platform: TPlatform, userId: number) => {
  await findUserForOperator(platform.db, userId);
  const rows = await accountRowsOfUser(platform.db, userId);
  return Promise.all(rows.map((row) => toOperatorAccount(platform, row)));
};

/**
 * Sets how many messages an SMTP or Gmail account may send a day, past the form's 1,000 (a
 * self-hoster's own server), or gives it back to the user's own setting (null); audited with
 * the reason. Takes effect at the account's next claim, sends already running included.
 */
export const setAccountDailyCap = async (
  platform: TPlatform,
  actor: TActor,
  accountId: number,
  { dailyCap, reason }: TDailyCapChange,
) => {
  const row = await findAccountForOperator(platform.db, accountId);
  if (!row) throw notFound('This sending account does not exist.');
  if (!isDailyCapped(row)) throw fieldError('dailyCap', OPERATOR_ACCOUNT_MESSAGES.notCapped);
  await audited(
    platform,
    actor,
    {
      action: 'account.daily-cap',
      targetType: 'account',
      targetId: accountId,
      details: { user_id: row.user_id, from: row.operator_mail_per_day, to: dailyCap, reason },
    },
    (trx) => setOperatorDailyCap(trx, accountId, dailyCap),
  );
  return toOperatorAccount(platform, (await findAccountForOperator(platform.db, accountId))!);
};

/** A disabled user is signed out everywhere at once and cannot sign in again. */
export const setUserDisabled = async (
  platform: TPlatform,
  operator: TOperator,
  userId: number,
  { disabled, reason }: { disabled: boolean; reason: string },
) => {
  await findUserForOperator(platform.db, userId);
  if (disabled && userId === operator.id) throw fieldError('disabled', 'You cannot disable your own account.');
  const evict = await audited(
    platform,
    operator,
    { action: disabled ? 'user.disable' : 'user.enable', targetType: 'user', targetId: userId, details: { reason } },
    async (trx) => {
      await setDisabled(trx, userId, disabled);
      return disabled ? endUserSessions(platform, trx, userId) : () => {};
    },
  );
  evict();
  return findUserForOperator(platform.db, userId);
};

const toPlan = (row: Awaited<ReturnType<typeof listPlansWithUsers>>[number]): TOperatorPlan => ({
  id: row.id,
  name: row.name,
  plan_name: row.plan_name,
  price: row.price_cents / 100,
  is_free: row.is_free,
  monthly_credits: row.monthly_credits,
  trial_credits: row.trial_credits,
  allows_scheduling: row.allows_scheduling,
  allows_accounts: row.allows_accounts,
  stripe_price_id: row.stripe_price_id,
  users: Number(row.users),
});

export const listOperatorPlans = async (platform: TPlatform) => (await listPlansWithUsers(platform.db)).map(toPlan);

const planValues = (input: TPlanInput) => ({
  name: input.name,
  plan_name: input.plan_name,
  price_cents: Math.round(input.price * 100),
  is_free: input.price === 0,
  monthly_credits: input.monthly_credits,
  trial_credits: input.trial_credits,
  allows_scheduling: input.allows_scheduling,
  allows_accounts: input.allows_accounts,
  stripe_price_id: input.stripe_price_id || null,
});

const planOf = async (platform: TPlatform, id: number) => {
  const plan = (await listPlansWithUsers(platform.db)).find((row) => row.id === id);
  if (!plan) throw notFound('This plan does not exist.');
  return toPlan(plan);
};

const slugTaken = (error: unknown) => {
  if (isUniqueViolation(error)) throw fieldError('plan_name', 'Another plan has this slug.');
  throw error;
};

export const createOperatorPlan = async (platform: TPlatform, operator: TOperator, input: TPlanInput) => {
  const plan = await audited(
    platform,
    operator,
    { action: 'plan.create', targetType: 'plan', targetId: null, details: input },
    (trx) => insertPlan(trx, planValues(input)),
  ).catch(slugTaken);
  return planOf(platform, plan.id);
};

export const updateOperatorPlan = async (platform: TPlatform, operator: TOperator, id: number, input: TPlanInput) => {
  const plan = await audited(
    platform,
    operator,
    { action: 'plan.update', targetType: 'plan', targetId: id, details: input },
    (trx) => updatePlan(trx, id, planValues(input)),
  ).catch(slugTaken);
  if (!plan) throw notFound('This plan does not exist.');
  return planOf(platform, id);
};

export const systemStatus = async (platform: TPlatform): Promise<TSystemStatus> => {
  const [queues, failures, workers, size, probe, resolvers] = await Promise.all([
    repository.queueCounts(platform.db),
    repository.lastFailures(platform.db, 10),
    countLiveProcesses(platform.db),
    repository.databaseSize(platform.db),
    probeStatus(platform.db),
    resolverStatus(platform.db),
  ]);
  return {
    queues,
    workers: { alive: workers },
    errors: failures.map((failure) => ({
      queue: failure.name,
      failed_at: failure.completed_on?.toISOString() ?? '',
      message: messageOf(failure.output),
    })),
    testInbox: platform.config.testInbox !== null,
    database: { size_bytes: size },
    verificationProbe: { ...probe, port: platform.config.verify.port },
    resolvers,
  };
};

/** What pg-boss kept of a failed job's error, in a line. */
const messageOf = (output: unknown) => {
  if (output && typeof output === 'object' && 'message' in output && typeof output.message === 'string') {
    return output.message.slice(0, 500);
  }
  return JSON.stringify(output ?? null).slice(0, 500);
};

export const listAudit = async (platform: TPlatform, query: z.output<typeof ZAuditQuery>) => {
  const page = await paginate(repository.selectAudit(platform.db), query, {
    sortColumns: { created_at: 'created_at' },
    searchColumns: ['operator_email', 'action', 'target_id'],
    tieBreaker: 'id',
  });
  return {
    data: page.data.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    meta: page.meta,
  };
};
