import {
  abPartLabel,
  abPartLetter,
  abSubjectsOf,
  figuresOfSend,
  ratesOf,
  type TAbTestPart,
  type TAbTestResult,
  type TSendEmailForm,
} from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import { createSplitSend, findBounceSplit, findSplitParts, type TNewSend } from '../delivery/delivery.service';
import { decideAbTestJob } from './ab-tests.jobs';
import { findAbTestOfLead, findAbTestsOfLeads, insertAbTest } from './ab-tests.repository';

/**
 * A/B subject tests (issue 31 §4): a Send Email send with two or three subjects. The engine
 * sends it as a split send (`createSplitSend`: one send per subject and one held for the
 * rest); this module keeps the test (`ab_tests`: metric, wait, decision), decides it
 * (`ab-tests.jobs.ts`) and reads its result for History.
 */

/** Starts an A/B test of a checked Send Email form: its parts, its row and its decision job, in one transaction. */
export const startAbTest = async (
  platform: TPlatform,
  userId: number,
  send: Omit<TNewSend, 'deliverAt' | 'subject'>,
  form: Pick<TSendEmailForm, 'subject' | 'subjectB' | 'subjectC' | 'abTestPercent' | 'abWaitMinutes' | 'abMetric'>,
) =>
  createSplitSend(
    platform,
    userId,
    { ...send, subjects: abSubjectsOf(form), testPercent: form.abTestPercent },
    async (trx, { leadId }) => {
      const decideAt = new Date(Date.now() + form.abWaitMinutes * 60_000);
      const { id } = await insertAbTest(trx, {
        userId,
        leadSendId: leadId,
        metric: form.abMetric,
        waitMinutes: form.abWaitMinutes,
        decideAt,
      });
      await platform.queue.enqueue(
        decideAbTestJob,
        { abTestId: id },
        { executor: trx, startAfter: decideAt, singletonKey: `ab-test-${id}` },
      );
    },
  );

/** The A/B test a send is part of, with each subject's figures (`figures.ts`) and the winner; null for other sends. */
export const abTestResultOf = async (
  platform: TPlatform,
  userId: number,
  send: { split_group: number | null },
): Promise<TAbTestResult | null> => {
  if (send.split_group === null) return null;
  const [test, parts] = await Promise.all([
    findAbTestOfLead(platform.db, userId, send.split_group),
    findSplitParts(platform.db, userId, send.split_group),
  ]);
  if (!test) return null;
  const rest = parts.find((part) => part.split_part === 0);
  const variants = await Promise.all(
    parts
      .filter((part) => (part.split_part ?? 0) > 0)
      .map(async (part) => {
        const figures = figuresOfSend(part, await findBounceSplit(platform.db, part.id));
        const rates = ratesOf(figures);
        return {
          part: part.split_part!,
          letter: abPartLetter(part.split_part!),
          sendId: part.id,
          subject: part.subject,
          recipients: figures.recipients,
          opened: figures.opened,
          clicked: figures.clicked,
          openRate: rates.opened,
          clickRate: rates.clicked,
          isWinner: test.winner_part === part.split_part,
        };
      }),
  );
  return {
    id: test.id,
    metric: test.metric,
    testPercent: Number(parts[0]?.split_test_percent ?? 0),
    waitMinutes: test.wait_minutes,
    status: test.status,
    decideAt: test.decide_at.toISOString(),
    decidedAt: test.decided_at?.toISOString() ?? null,
    decision: test.decision,
    variants,
    rest: rest ? { sendId: rest.id, recipients: rest.recipients_count, state: rest.status } : null,
  };
};

/** Which A/B part each of these History rows is (null for a send that is not one). */
export const abTestPartsOf = async (
  platform: TPlatform,
  userId: number,
  rows: { id: number; split_group: number | null; split_part: number | null }[],
): Promise<Map<number, TAbTestPart>> => {
  const tests = await findAbTestsOfLeads(platform.db, userId, [
    ...new Set(rows.flatMap((row) => (row.split_group === null ? [] : [row.split_group]))),
  ]);
  const byLead = new Map(tests.map((test) => [test.lead_send_id, test.id]));
  return new Map(
    rows.flatMap((row) => {
      const abTestId = row.split_group === null ? undefined : byLead.get(row.split_group);
      return abTestId === undefined || row.split_part === null
        ? []
        : [[row.id, { abTestId, part: row.split_part, label: abPartLabel(row.split_part) }] as const];
    }),
  );
};
