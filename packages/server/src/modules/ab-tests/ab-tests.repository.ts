import type { Executor } from '../../platform/db';

/** The A/B tests' SQL (`ab_tests`); their sends are the engine's, read through its service. */

export const insertAbTest = (
  trx: Executor,
  test: { userId: number; leadSendId: number; metric: 'opens' | 'clicks'; waitMinutes: number; decideAt: Date },
) =>
  trx
    .insertInto('ab_tests')
    .values({
      user_id: test.userId,
      lead_send_id: test.leadSendId,
      metric: test.metric,
      wait_minutes: test.waitMinutes,
      decide_at: test.decideAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

/** The test, locked for its decision (a second run waits, then finds it decided). */
export const lockAbTest = (trx: Executor, id: number) =>
  trx.selectFrom('ab_tests').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();

export const findAbTestOfLead = (db: Executor, userId: number, leadSendId: number) =>
  db
    .selectFrom('ab_tests')
    .selectAll()
    .where('user_id', '=', userId)
    .where('lead_send_id', '=', leadSendId)
    .executeTakeFirst();

export const findAbTestsOfLeads = (db: Executor, userId: number, leadSendIds: number[]) =>
  leadSendIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('ab_tests')
        .select(['id', 'lead_send_id'])
        .where('user_id', '=', userId)
        .where('lead_send_id', 'in', leadSendIds)
        .execute();

/** Ends a test still testing: decided (with its winner) or cancelled; answers whether this call did. */
export const endAbTest = async (
  trx: Executor,
  id: number,
  end: { status: 'decided'; winnerPart: number; decision: string } | { status: 'cancelled'; decision: string },
) =>
  (
    await trx
      .updateTable('ab_tests')
      .set({
        status: end.status,
        winner_part: end.status === 'decided' ? end.winnerPart : null,
        decision: end.decision,
        decided_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .where('status', '=', 'testing')
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

/** When a test still testing will be decided: its parts' handover and the wait, known once they are handed over. */
export const setDecideAt = (trx: Executor, id: number, decideAt: Date) =>
  trx
    .updateTable('ab_tests')
    .set({ decide_at: decideAt, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'testing')
    .execute();
