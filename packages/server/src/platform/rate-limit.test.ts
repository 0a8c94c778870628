import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './rate-limit';

describe('in-memory rate limit', () => {
  it('allows the limit within a window, refuses the next hit with the time left, and starts over after', () => {
    const consume = createMemoryRateLimiter();
    const start = 1_000_000;
    const hits = [0, 1, 2].map((offset) => consume('route:x:ip:1', 3, 60, start + offset * 1000));
    expect(hits.every((hit) => hit.isAllowed)).toBe(true);
    expect(consume('route:x:ip:1', 3, 60, start + 15_000)).toEqual({ isAllowed: false, retryAfterSeconds: 45 });
    // Another caller has a bucket of its own.
    expect(consume('route:x:ip:2', 3, 60, start + 15_000).isAllowed).toBe(true);
    expect(consume('route:x:ip:1', 3, 60, start + 60_000).isAllowed).toBe(true);
  });

  it('stays bounded under a flood of new keys, forgetting expired windows first', () => {
    const consume = createMemoryRateLimiter(100);
    for (let index = 0; index < 100; index += 1) consume(`old:${index}`, 1, 60, 0);
    expect(consume('old:5', 1, 60, 1000).isAllowed).toBe(false);
    // Past their window, the old keys make room; the new caller is counted from one.
    for (let index = 0; index < 1000; index += 1) expect(consume(`new:${index}`, 1, 60, 61_000).isAllowed).toBe(true);
    expect(consume('new:999', 1, 60, 61_001).isAllowed).toBe(false);
  });
});
