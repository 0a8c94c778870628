import { z } from 'zod';
import { percentOf, type TFigures } from './figures';

/**
 * A/B subject test (issue 31 §4): a Send Email send with two or three subjects. A test share
 * of the audience (e.g. 20 %) is split evenly among the subjects; after the wait, the subject
 * with the better open rate (or click rate) goes to everyone else, by itself. Each subject's
 * part and the rest are ordinary sends of the engine (exactly once each, and nobody in two).
 */
export const AB_METRICS = ['opens', 'clicks'] as const;
export type TAbMetric = (typeof AB_METRICS)[number];
export const AB_METRIC_LABELS: Record<TAbMetric, string> = { opens: 'Open rate', clicks: 'Click rate' };

export const AB_TEST_LIMITS = {
  /** The test share, in percent of the audience (all subjects together). */
  minPercent: 1,
  maxPercent: 50,
  defaultPercent: 20,
  /** The wait before the winner is chosen, in minutes (fractions allowed): at most 30 days. */
  minWaitMinutes: 0.1,
  maxWaitMinutes: 43_200,
  defaultWaitMinutes: 240,
} as const;

/** The letter a test part goes by (part 1 is A, the subject of the form's Subject field). */
export const abPartLetter = (part: number) => String.fromCharCode(64 + part);

export const AB_MESSAGES = {
  subjectBRequired: 'Subject B field is required for an A/B test!',
  subjectsDiffer: 'Each subject of an A/B test must differ from the others.',
  percent: `The test share is between ${AB_TEST_LIMITS.minPercent}% and ${AB_TEST_LIMITS.maxPercent}% of the recipients.`,
  wait: 'Choose when the winner is chosen: from 6 seconds (0.1 minutes) to 30 days.',
  opensUntracked: 'An A/B test by open rate needs open tracking: switch Track opens on, or choose the click rate.',
  clicksUntracked: 'An A/B test by click rate needs click tracking: switch Track clicks on, or choose the open rate.',
  noSchedule: 'An A/B test starts when you send it: send it now, or send the subjects on their own later.',
  started:
    'Your A/B test is on its way: the subjects go to the test share now, and the winner to the rest later. You can follow it on this page and in History.',
} as const;

/**
 * How a split deals out an audience of `total`: each of `parts` test subjects gets
 * round(total × percent ÷ 100 ÷ parts) recipients (at least one while the audience has one
 * for each subject), and the rest everyone else. The snapshot's SQL applies the same rule.
 */
export const abSplitSizes = (total: number, percent: number, parts: number) => {
  const fair = Math.floor(total / parts);
  const perPart = Math.min(fair, Math.max(1, Math.round((total * percent) / 100 / parts)));
  return { perPart, rest: total - perPart * parts };
};

export type TAbVariantFigures = { part: number; figures: TFigures };
export type TAbDecision = { winnerPart: number; reason: string };

/**
 * The winner of an A/B test, and why in the user's words. The rate is the metric's share of
 * the part's recipients (`figures.ts`: every share is of the recipients), compared exactly.
 * - the higher rate of the chosen metric wins;
 * - a tie on it goes to the higher rate of the other metric (clicks for opens, opens for clicks);
 * - still tied, or no data at all (nobody opened, or clicked, in any part), subject A (the
 *   form's own Subject) goes: a test that learned nothing keeps the subject written first.
 */
export const chooseAbWinner = (variants: TAbVariantFigures[], metric: TAbMetric): TAbDecision => {
  const other: TAbMetric = metric === 'opens' ? 'clicks' : 'opens';
  const count = (figures: TFigures, which: TAbMetric) => (which === 'opens' ? figures.opened : figures.clicked);
  // a/b against c/d without dividing; a part nobody was left for (no recipients) has the rate 0.
  const rateOf = (variant: TAbVariantFigures, which: TAbMetric) =>
    variant.figures.recipients === 0 ? [0, 1] : [count(variant.figures, which), variant.figures.recipients];
  const compare = (left: TAbVariantFigures, right: TAbVariantFigures, which: TAbMetric) => {
    const [leftCount, leftOf] = rateOf(left, which) as [number, number];
    const [rightCount, rightOf] = rateOf(right, which) as [number, number];
    return leftCount * rightOf - rightCount * leftOf;
  };
  const sorted = [...variants].sort((left, right) => left.part - right.part);
  const first = sorted[0];
  if (!first) return { winnerPart: 1, reason: 'No subject was tested: subject A goes to the rest.' };
  const label = metric === 'opens' ? 'open' : 'click';
  if (sorted.every((variant) => count(variant.figures, metric) === 0)) {
    return {
      winnerPart: first.part,
      reason: `No ${label}s were recorded in the test, so subject ${abPartLetter(first.part)} (the first) goes to the rest.`,
    };
  }
  let best = first;
  let isTie = false;
  let tiedOnOther = false;
  for (const candidate of sorted.slice(1)) {
    const byMetric = compare(candidate, best, metric);
    if (byMetric > 0) {
      best = candidate;
      isTie = false;
      tiedOnOther = false;
    } else if (byMetric === 0) {
      const byOther = compare(candidate, best, other);
      if (byOther > 0) {
        best = candidate;
        tiedOnOther = true;
        isTie = false;
      } else if (byOther === 0) isTie = true;
      else tiedOnOther = true;
    }
  }
  const rate = (variant: TAbVariantFigures) =>
    percentOf(count(variant.figures, metric), variant.figures.recipients).toLocaleString('en-US');
  const letter = abPartLetter(best.part);
  if (isTie) {
    return {
      winnerPart: best.part,
      reason: `Tied at ${rate(best)}% ${label} rate and on the ${other === 'opens' ? 'open' : 'click'} rate, so subject ${letter} (the first of them) goes to the rest.`,
    };
  }
  if (tiedOnOther) {
    return {
      winnerPart: best.part,
      reason: `Tied at ${rate(best)}% ${label} rate; subject ${letter} had the better ${other === 'opens' ? 'open' : 'click'} rate.`,
    };
  }
  return { winnerPart: best.part, reason: `Subject ${letter} had the best ${label} rate: ${rate(best)}%.` };
};

/** One subject's part of an A/B test, as History shows it. */
export const ZAbVariant = z.object({
  part: z.number().int(),
  letter: z.string(),
  sendId: z.number().int(),
  subject: z.string(),
  recipients: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  /** Percent of the part's recipients, one decimal (`ratesOf`). */
  openRate: z.number(),
  clickRate: z.number(),
  isWinner: z.boolean(),
});

/** An A/B test and its result: on every part's History row and details. */
export const ZAbTestResult = z.object({
  id: z.number().int(),
  metric: z.enum(AB_METRICS),
  testPercent: z.number(),
  waitMinutes: z.number(),
  status: z.enum(['testing', 'decided', 'cancelled']),
  decideAt: z.string(),
  decidedAt: z.string().nullable(),
  /** Why the winner won (a tie, no data), in the user's words. */
  decision: z.string().nullable(),
  variants: z.array(ZAbVariant),
  /** The rest of the recipients: its send (held until the decision) and how many. */
  rest: z.object({ sendId: z.number().int(), recipients: z.number().int(), state: z.string() }).nullable(),
});
export type TAbTestResult = z.infer<typeof ZAbTestResult>;

/** Which part of an A/B test a History row is: a subject's letter, or the rest. */
export const ZAbTestPart = z.object({ abTestId: z.number().int(), part: z.number().int(), label: z.string() });
export type TAbTestPart = z.infer<typeof ZAbTestPart>;

export const abPartLabel = (part: number) =>
  part === 0 ? 'A/B test · winner to the rest' : `A/B test · subject ${abPartLetter(part)}`;

/** A wait in minutes as people say it: "90 seconds", "4 hours", "1.5 days". */
export const describeWait = (minutes: number) => {
  const round = (value: number) => Number(value.toFixed(2)).toLocaleString('en-US');
  if (minutes < 1) return `${round(minutes * 60)} seconds`;
  if (minutes < 60) return `${round(minutes)} minute${minutes === 1 ? '' : 's'}`;
  if (minutes < 2880) return `${round(minutes / 60)} hour${minutes === 60 ? '' : 's'}`;
  return `${round(minutes / 1440)} days`;
};

/** The A/B fields of the Send Email form (`ZSendEmailRequest`). */
export type TAbTestForm = {
  subject: string;
  abTest: boolean;
  subjectB: string;
  subjectC: string;
  abMetric: TAbMetric;
  trackOpens: boolean;
  trackClicks: boolean;
  isSendLater: boolean;
};

/** What an A/B test needs beyond each field's own check: a Subject B, subjects that differ, the metric tracked, sent now. */
export const abTestIssues = (form: TAbTestForm): { path: string; message: string }[] => {
  if (!form.abTest) return [];
  const issues: { path: string; message: string }[] = [];
  if (!form.subjectB.trim()) issues.push({ path: 'subjectB', message: AB_MESSAGES.subjectBRequired });
  const subjects = [form.subject, form.subjectB, form.subjectC].map((subject) => subject.trim().toLowerCase());
  if (form.subjectB.trim() && subjects[1] === subjects[0]) {
    issues.push({ path: 'subjectB', message: AB_MESSAGES.subjectsDiffer });
  }
  if (form.subjectC.trim() && (subjects[2] === subjects[0] || subjects[2] === subjects[1])) {
    issues.push({ path: 'subjectC', message: AB_MESSAGES.subjectsDiffer });
  }
  if (form.abMetric === 'opens' && !form.trackOpens)
    issues.push({ path: 'abMetric', message: AB_MESSAGES.opensUntracked });
  if (form.abMetric === 'clicks' && !form.trackClicks) {
    issues.push({ path: 'abMetric', message: AB_MESSAGES.clicksUntracked });
  }
  if (form.isSendLater) issues.push({ path: 'abTest', message: AB_MESSAGES.noSchedule });
  return issues;
};

/** The subjects of an A/B test in part order (A the form's Subject), blanks left out. */
export const abSubjectsOf = (form: Pick<TAbTestForm, 'subject' | 'subjectB' | 'subjectC'>) =>
  [form.subject, form.subjectB, form.subjectC].map((subject) => subject.trim()).filter(Boolean);
