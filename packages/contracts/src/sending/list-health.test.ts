import { describe, expect, it } from 'vitest';
import { audienceHealthItems, type TAudienceFacts } from './list-health';
import { messageScoreOf, worstStatus } from './pre-send';

const facts = (overrides: Partial<TAudienceFacts> = {}): TAudienceFacts => ({
  recipients: 25,
  unverified: 0,
  invalid: 0,
  generic: 0,
  ...overrides,
});
const statusOf = (items: ReturnType<typeof audienceHealthItems>, id: string) =>
  items.find((entry) => entry.id === id)?.status;

describe('the one rule for an audience’s health', () => {
  it('is never red for a freshly imported list: unverified alone is a warning with its reason', () => {
    const items = audienceHealthItems(facts({ unverified: 25 }));
    expect(worstStatus(items)).toBe('warn');
    const unverified = items.find((entry) => entry.id === 'unverified')!;
    expect(unverified).toMatchObject({
      status: 'warn',
      detail: '25 of 25 recipients (100%) were never verified.',
      advice: expect.stringMatching(/bounce.*sender reputation.*one credit per address/),
    });
    expect(unverified.advice).not.toMatch(/spam score/);
  });

  it('is red on evidence: a known-bad address, or past sends over the account’s lines', () => {
    expect(statusOf(audienceHealthItems(facts({ invalid: 1 })), 'invalid')).toBe('fail');
    const recent = { days: 90, sends: 2, messages: 40, hardBounces: 4, complaints: 0 };
    const over = audienceHealthItems(facts({ recent }));
    expect(over.find((entry) => entry.id === 'history')).toMatchObject({
      status: 'fail',
      detail: '2 sends in the last 90 days: 4 hard bounces (10%) and 0 spam complaints (0%) of 40 messages.',
    });
    // The account's own lines decide: at 12 % the same figures are a warning (half the line) …
    expect(
      statusOf(audienceHealthItems(facts({ recent }), { bouncePercent: 12, complaintPercent: 0.1 }), 'history'),
    ).toBe('warn');
    // … and at 25 % they pass.
    expect(
      statusOf(audienceHealthItems(facts({ recent }), { bouncePercent: 25, complaintPercent: 0.1 }), 'history'),
    ).toBe('pass');
  });

  it('counts in words: one recipient, one send, one role address', () => {
    const items = audienceHealthItems(
      facts({
        recipients: 1,
        unverified: 1,
        generic: 1,
        suppressed: 1,
        recent: { days: 90, sends: 1, messages: 1, hardBounces: 1, complaints: 1 },
      }),
    );
    const text = items.map((entry) => entry.detail).join(' ');
    expect(text).toContain('1 of 1 recipient (100%) was never verified.');
    expect(text).toContain('1 of 1 recipient (100%) is a role address');
    expect(text).toContain('1 recipient bounced, complained or unsubscribed before');
    expect(text).toContain(
      '1 send in the last 90 days: 1 hard bounce (100%) and 1 spam complaint (100%) of 1 message.',
    );
    expect(text).not.toMatch(/\b1 (sends|recipients|messages|hard bounces|generic addresses)\b/);
  });
});

describe('the message score', () => {
  it('never reads Good while a finding is red', () => {
    expect(messageScoreOf(8.5, [{ status: 'pass' }, { status: 'fail' }])).toBe(4.9);
    expect(messageScoreOf(3, [{ status: 'fail' }])).toBe(3);
    expect(messageScoreOf(8.5, [{ status: 'warn' }, { status: 'pass' }])).toBe(8.5);
  });
});
