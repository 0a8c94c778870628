import { IconBell } from '@tabler/icons-react';
import { describe, expect, it } from 'vitest';
import { navigation, visibleNavigation } from './navigation';

describe('visibleNavigation', () => {
  it('shows only available links, and a group only while one of its links is available', () => {
    const entries = visibleNavigation([
      { label: 'Dashboard', path: '/', icon: IconBell, available: true },
      { label: 'History', path: '/history', icon: IconBell, available: false },
      {
        label: 'Tools',
        icon: IconBell,
        children: [
          { label: 'Spam Test', path: '/tools/mail-testing', icon: IconBell, available: true },
          { label: 'Email Verification', path: '/tools/email-verification', icon: IconBell, available: false },
        ],
      },
      {
        label: 'Settings',
        icon: IconBell,
        children: [{ label: 'Subscription', path: '/s', icon: IconBell, available: false }],
      },
    ]);

    expect(entries.map((entry) => entry.label)).toEqual(['Dashboard', 'Tools']);
    expect(entries[1] && 'children' in entries[1] ? entries[1].children.map((child) => child.label) : []).toEqual([
      'Spam Test',
    ]);
  });

  it('offers today only the screens that exist', () => {
    expect(visibleNavigation(navigation).map((entry) => entry.label)).toEqual([
      'Dashboard',
      'Send Email',
      'Scheduled Emails',
      'History',
      'Drip Campaigns',
      'Mailing Lists',
      'Suppression',
      'Tools',
      'Settings',
      'Credit Log',
      'Support',
      'Notifications',
    ]);
  });

  it('shows the operator area to operators only', () => {
    const labels = (role: 'user' | 'operator') => visibleNavigation(navigation, role).map((entry) => entry.label);
    expect(labels('user')).not.toContain('Operator');
    expect(labels('operator').at(-1)).toBe('Operator');
  });

  it('leaves out plans and credits on a single-company install (BILLING=off)', () => {
    const labels = (entries: ReturnType<typeof visibleNavigation>) =>
      entries.flatMap((entry) => ('children' in entry ? entry.children.map((child) => child.label) : [entry.label]));
    const withBilling = labels(visibleNavigation(navigation, 'user'));
    const without = labels(visibleNavigation(navigation, 'user', { billing: false }));
    expect(withBilling).toEqual(expect.arrayContaining(['Subscription', 'Credit Log', 'API Keys', 'Webhooks']));
    expect(without).not.toContain('Subscription');
    expect(without).not.toContain('Credit Log');
    expect(without).toEqual(expect.arrayContaining(['API Keys', 'Webhooks']));
  });
});
