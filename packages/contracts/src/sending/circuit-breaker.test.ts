import { describe, expect, it } from 'vitest';
import { breakerReason, breakerVerdict, CIRCUIT_BREAKER, formatPercent, ZBreakerSettings } from './circuit-breaker';

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
      "Paused to protect your sender reputation: hard bounces reached 10.5% (130 of the first 1,234 messages), above your account's limit of 5%. The list likely holds old or mistyped addresses: verify it, or remove the bounced addresses, before you resume.",
    );
    expect(formatPercent(0.1)).toBe('0.1%');
    expect(formatPercent(0.125)).toBe('0.13%');
  });

  it('refuses limits outside (0, 100] with the field named', () => {
    expect(ZBreakerSettings.safeParse({ breakerBouncePercent: '2.5', breakerComplaintPercent: 0.3 }).data).toEqual({
      breakerBouncePercent: 2.5,
      breakerComplaintPercent: 0.3,
    });
    const refused = ZBreakerSettings.safeParse({ breakerBouncePercent: 0, breakerComplaintPercent: 101 });
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual([
      'The hard-bounce limit must be more than 0%.',
      'The complaint limit must be at most 100%.',
    ]);
  });
});
