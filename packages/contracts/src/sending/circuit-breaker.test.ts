import { describe, expect, it } from 'vitest';
import {
  BREAKER_LIMITS,
  breakerRangeText,
  breakerReason,
  breakerVerdict,
  CIRCUIT_BREAKER,
  formatPercent,
  ZBreakerSettings,
} from './circuit-breaker';

const lines = { bouncePercent: CIRCUIT_BREAKER.bouncePercent, complaintPercent: CIRCUIT_BREAKER.complaintPercent };

describe('the circuit breaker rule', () => {
  it('judges nothing before 200 messages, however bad', () => {
    expect(breakerVerdict({ attempts: 199, hardBounces: 150, complaints: 20 }, lines)).toBeNull();
  });

  it('trips when a share passes its line, not when it reaches it', () => {
    expect(breakerVerdict({ attempts: 200, hardBounces: 10, complaints: 0 }, lines)).toBeNull();
    expect(breakerVerdict({ attempts: 200, hardBounces: 11, complaints: 0 }, lines)).toMatchObject({
      kind: 'bounces',
      percent: 5.5,
      line: 5,
      count: 11,
      attempts: 200,
    });
    expect(breakerVerdict({ attempts: 1000, hardBounces: 0, complaints: 1 }, lines)).toBeNull();
    expect(breakerVerdict({ attempts: 1000, hardBounces: 0, complaints: 2 }, lines)).toMatchObject({
      kind: 'complaints',
      percent: 0.2,
    });
  });

  it("uses the account's own lines", () => {
    expect(
      breakerVerdict({ attempts: 400, hardBounces: 8, complaints: 0 }, { ...lines, bouncePercent: 1 }),
    ).toMatchObject({
      kind: 'bounces',
      line: 1,
    });
    expect(
      breakerVerdict({ attempts: 400, hardBounces: 30, complaints: 0 }, { ...lines, bouncePercent: 10 }),
    ).toBeNull();
  });

  it('says why in figures the user can check', () => {
    const verdict = breakerVerdict({ attempts: 1234, hardBounces: 130, complaints: 0 }, lines)!;
    expect(breakerReason(verdict)).toBe(
      "Hard bounces reached 10.5% (130 of the first 1,234 messages), above your account's limit of 5%. The list likely holds old or mistyped addresses: verify it, or remove the bounced addresses, before you resume.",
    );
    expect(formatPercent(0.1)).toBe('0.1%');
    expect(formatPercent(0.125)).toBe('0.13%');
  });

  it('takes numbers only, bounces 0.5–50 % and complaints 0.01–5 %, with the field and its range named', () => {
    expect(ZBreakerSettings.safeParse({ breakerBouncePercent: 2.5, breakerComplaintPercent: 0.3 }).data).toEqual({
      breakerBouncePercent: 2.5,
      breakerComplaintPercent: 0.3,
    });
    for (const [bounce, complaint] of [
      [0.5, 0.01],
      [50, 5],
    ]) {
      expect(
        ZBreakerSettings.safeParse({ breakerBouncePercent: bounce, breakerComplaintPercent: complaint }).success,
      ).toBe(true);
    }
    const bounceMessage = 'The hard-bounce limit must be a number from 0.5% to 50%.';
    const complaintMessage = 'The complaint limit must be a number from 0.01% to 5%.';
    // A coercion took `true` as 1 and `[5]` as 5; 100 % never trips and 1e-9 % always does.
    for (const value of [true, [5], '2.5', 1e-9, 0, 100, 50.1, Number.NaN, Number.POSITIVE_INFINITY, null]) {
      const refused = ZBreakerSettings.safeParse({ breakerBouncePercent: value, breakerComplaintPercent: value });
      expect(
        refused.error?.issues.map((issue) => [issue.path.join('.'), issue.message]),
        String(value),
      ).toEqual([
        ['breakerBouncePercent', bounceMessage],
        ['breakerComplaintPercent', complaintMessage],
      ]);
    }
    expect(ZBreakerSettings.safeParse({ breakerBouncePercent: 0.49, breakerComplaintPercent: 1 }).success).toBe(false);
    expect(ZBreakerSettings.safeParse({ breakerBouncePercent: 5, breakerComplaintPercent: 5.01 }).success).toBe(false);
    expect(ZBreakerSettings.safeParse({ breakerBouncePercent: 5, breakerComplaintPercent: 0.009 }).success).toBe(false);
    expect(breakerRangeText(BREAKER_LIMITS.bouncePercent)).toBe('from 0.5% to 50%');
  });
});
