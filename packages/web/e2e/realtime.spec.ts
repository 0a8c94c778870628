import { expect, test } from '@playwright/test';
import { admin, baseUrl, E2E_USER, expectAccessible, signIn } from './support';

test('a notification published by the worker process reaches every open tab live', async ({ context }) => {
  const first = await context.newPage();
  const second = await context.newPage();
  await signIn(first);
  await second.goto(`${baseUrl()}/notifications`);
  for (const page of [first, second]) {
    await expect(page.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');
  }
  const before = Number((await first.getByTestId('notification-bell').textContent())?.replace(/\D/g, '') || 0);

  admin('notify', E2E_USER.email, 'Your import finished', '--body', '12,000 members added');

  for (const page of [first, second]) {
    await expect(page.getByTestId('notification-bell')).toContainText(String(before + 1));
  }
  // The table on the notifications page refreshes itself.
  await expect(second.getByTestId('data-table')).toContainText('Your import finished');
  await expectAccessible(second, 'notifications, updated live');
});

test('signing out in one tab closes the live channel of the other', async ({ context }) => {
  const first = await context.newPage();
  const second = await context.newPage();
  await signIn(first);
  await second.goto(`${baseUrl()}/`);
  await expect(second.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');

  await first.getByTestId('user-name').click();
  await first.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(first).toHaveURL(/\/login/);
  // The server closes the second tab's socket (4401) and that tab returns to sign-in.
  await expect(second).toHaveURL(/\/login/);
});
