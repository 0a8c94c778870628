import { ANNOUNCEMENT_AGAIN_AFTER_MS } from '@sendwell/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { isDue, readDismissed, writeDismissed } from './announcements';

describe('when the announcement modal opens by itself (spec §4)', () => {
  beforeEach(() => localStorage.clear());

  it('opens when never dismissed, not within a week of a dismissal, again after a week, and for a new announcement', () => {
    const now = Date.UTC(2026, 10, 24, 12);
    expect(isDue(7, now)).toBe(true);
    writeDismissed(7, now);
    expect(readDismissed()).toEqual({ id: 7, at: now });
    expect(isDue(7, now + ANNOUNCEMENT_AGAIN_AFTER_MS - 1)).toBe(false);
    expect(isDue(7, now + ANNOUNCEMENT_AGAIN_AFTER_MS + 1)).toBe(true);
    expect(isDue(8, now + 1)).toBe(true);
  });

  it('treats a damaged stored value as never dismissed', () => {
    localStorage.setItem('announcement_dismissed', '{not json');
    expect(readDismissed()).toBeNull();
    expect(isDue(1)).toBe(true);
  });
});
