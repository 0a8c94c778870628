import { describe, expect, it } from 'vitest';
import { abSplitSizes, abTestIssues, chooseAbWinner, describeWait, type TAbVariantFigures } from './ab-test';
import { emptyFigures } from './figures';

const variant = (part: number, recipients: number, opened: number, clicked = 0): TAbVariantFigures => ({
  part,
  figures: { ...emptyFigures(), recipients, accepted: recipients, opened, clicked },
});

describe('the A/B split', () => {
  it('gives each subject the same share and the rest everyone else', () => {
    expect(abSplitSizes(100, 20, 2)).toEqual({ perPart: 10, rest: 80 });
    expect(abSplitSizes(1000, 20, 3)).toEqual({ perPart: 67, rest: 799 });
    expect(abSplitSizes(10, 20, 2)).toEqual({ perPart: 1, rest: 8 });
  });

  it('keeps one recipient per subject while the audience allows, none when it does not', () => {
    expect(abSplitSizes(5, 1, 2)).toEqual({ perPart: 1, rest: 3 });
    expect(abSplitSizes(1, 20, 2)).toEqual({ perPart: 0, rest: 1 });
    expect(abSplitSizes(0, 20, 3)).toEqual({ perPart: 0, rest: 0 });
  });
});

describe('the A/B winner', () => {
  it('is the better rate of the chosen metric, of each part’s recipients', () => {
    // B has fewer opens but a better rate (3 of 5 against 4 of 10).
    const decision = chooseAbWinner([variant(1, 10, 4), variant(2, 5, 3)], 'opens');
    expect(decision).toEqual({ winnerPart: 2, reason: 'Subject B had the best open rate: 60%.' });
    expect(
      chooseAbWinner([variant(1, 10, 9, 1), variant(2, 10, 1, 2), variant(3, 10, 0, 0)], 'clicks').winnerPart,
    ).toBe(2);
  });

  it('breaks a tie on the other metric, then keeps the first subject', () => {
    expect(chooseAbWinner([variant(1, 10, 5, 1), variant(2, 10, 5, 2)], 'opens')).toEqual({
      winnerPart: 2,
      reason: 'Tied at 50% open rate; subject B had the better click rate.',
    });
    expect(chooseAbWinner([variant(1, 10, 5, 2), variant(2, 10, 5, 2)], 'opens')).toEqual({
      winnerPart: 1,
      reason: 'Tied at 50% open rate and on the click rate, so subject A (the first of them) goes to the rest.',
    });
  });

  it('keeps subject A when the test recorded nothing, and survives a part nobody was left for', () => {
    expect(chooseAbWinner([variant(1, 10, 0), variant(2, 10, 0)], 'opens')).toEqual({
      winnerPart: 1,
      reason: 'No opens were recorded in the test, so subject A (the first) goes to the rest.',
    });
    expect(chooseAbWinner([variant(1, 0, 0), variant(2, 0, 0)], 'clicks').winnerPart).toBe(1);
    expect(chooseAbWinner([variant(1, 0, 0), variant(2, 3, 1)], 'opens').winnerPart).toBe(2);
  });
});

describe('the A/B form', () => {
  const form = {
    subject: 'Hello',
    abTest: true,
    subjectB: 'Hi there',
    subjectC: '',
    abMetric: 'opens' as const,
    trackOpens: true,
    trackClicks: true,
    isSendLater: false,
  };

  it('asks for a Subject B that differs, a tracked metric, and a send now', () => {
    expect(abTestIssues(form)).toEqual([]);
    expect(abTestIssues({ ...form, abTest: false, subjectB: '' })).toEqual([]);
    expect(abTestIssues({ ...form, subjectB: ' ' }).map((issue) => issue.path)).toEqual(['subjectB']);
    expect(abTestIssues({ ...form, subjectB: 'hello ' })[0]?.message).toMatch(/must differ/);
    expect(abTestIssues({ ...form, subjectC: 'Hi There' }).map((issue) => issue.path)).toEqual(['subjectC']);
    expect(abTestIssues({ ...form, trackOpens: false }).map((issue) => issue.path)).toEqual(['abMetric']);
    expect(abTestIssues({ ...form, isSendLater: true }).map((issue) => issue.path)).toEqual(['abTest']);
  });

  it('says a wait as people do', () => {
    expect(describeWait(0.1)).toBe('6 seconds');
    expect(describeWait(30)).toBe('30 minutes');
    expect(describeWait(240)).toBe('4 hours');
    expect(describeWait(90)).toBe('1.5 hours');
  });
});
