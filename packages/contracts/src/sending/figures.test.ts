import { describe, expect, it } from 'vitest';
import {
  addFigures,
  bouncedOf,
  emptyFigures,
  FIGURE_DEFINITIONS,
  FIGURE_NAMES,
  figuresOfSend,
  percentOf,
  progressOf,
  ratesOf,
  withoutOpenPixel,
} from './figures';
import { softBounceWindowStart, TEMPORARY_SUPPRESSION, temporarySuppressionOf } from './suppression';

describe('the counting definition (R33)', () => {
  it('defines every figure in words', () => {
    for (const name of FIGURE_NAMES) expect(FIGURE_DEFINITIONS[name].length).toBeGreaterThan(20);
    expect(FIGURE_DEFINITIONS.bounced).toMatch(/hard and soft/i);
  });

  it('takes every share of the recipients, so a bounce after acceptance is not a second recipient', () => {
    // The send: 65 recipients, all accepted, 29 of them bounced afterwards.
    const figures = { ...emptyFigures(), recipients: 65, accepted: 65, bouncedHard: 20, bouncedSoft: 9 };
    expect(bouncedOf(figures)).toBe(29);
    expect(ratesOf(figures)).toMatchObject({ sent: 100, bounced: 44.6 });
  });

  it('rounds to one decimal and answers 0 of nothing', () => {
    expect(percentOf(1, 3)).toBe(33.3);
    expect(percentOf(5, 0)).toBe(0);
  });

  it('adds figures name by name', () => {
    expect(addFigures({ ...emptyFigures(), opened: 2 }, { opened: 3, clicked: 1 })).toMatchObject({
      opened: 5,
      clicked: 1,
      recipients: 0,
    });
  });

  it('reads a send’s counters: failed recipients without a severity are soft bounces', () => {
    const counters = {
      recipients_count: 10,
      sent_count: 9,
      failed_count: 4,
      unknown_count: 0,
      delivered_count: 0,
      opened_count: 3,
      clicked_count: 1,
      complained_count: 1,
      unsubscribed_count: 1,
    };
    expect(figuresOfSend(counters, { hard: 2, soft: 1 })).toMatchObject({
      recipients: 10,
      accepted: 9,
      bouncedHard: 2,
      bouncedSoft: 2,
      opened: 3,
    });
  });

  it('counts a running send’s progress by recipients settled, never past 100%', () => {
    expect(progressOf({ recipients: 10, waiting: 4 })).toEqual({ handled: 6, percent: 60 });
    expect(progressOf({ recipients: 0, waiting: 0 })).toEqual({ handled: 0, percent: 0 });
  });
});

describe('the temporary suppression rule', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);

  it('suppresses after three soft bounces within 15 days, for 30 days after the last', () => {
    expect(TEMPORARY_SUPPRESSION).toEqual({ softBounces: 3, withinDays: 15, liftedAfterDays: 30 });
    expect(temporarySuppressionOf([daysAgo(10), daysAgo(5)], now)).toBeNull();
    expect(temporarySuppressionOf([daysAgo(10), daysAgo(5), daysAgo(0)], now)).toEqual({
      until: new Date(now.getTime() + 30 * 86_400_000),
    });
  });

  it('does not count soft bounces older than the window', () => {
    expect(temporarySuppressionOf([daysAgo(20), daysAgo(16), daysAgo(1)], now)).toBeNull();
    expect(softBounceWindowStart(now)).toEqual(daysAgo(15));
  });
});

describe('the test inbox’s view of a message', () => {
  it('leaves out the open pixel, and nothing else', () => {
    const html =
      '<p>Hi <a href="https://sendwell.test/api/t/c/1a-0123456789abcdef0123/4/sig">offer</a></p>' +
      '<img src="https://acme.test/logo.png" alt="Acme">' +
      '<img src="https://sendwell.test/api/t/o/1a-0123456789abcdef0123/0123456789abcdef.gif" width="1" height="1" alt="" style="display:block;border:0"></body>';
    expect(withoutOpenPixel(html)).toBe(
      '<p>Hi <a href="https://sendwell.test/api/t/c/1a-0123456789abcdef0123/4/sig">offer</a></p><img src="https://acme.test/logo.png" alt="Acme"></body>',
    );
    expect(withoutOpenPixel("<IMG SRC='http://localhost:3000/api/t/o/x/y.gif'>")).toBe('');
  });
});
