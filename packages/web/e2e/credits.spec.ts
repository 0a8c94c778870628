import { expect, test } from '@playwright/test';
import { admin, baseUrl, E2E_USER, expectAccessible, signIn } from './support';

test('the balance follows an operator’s grant live in every tab, and the credit log lists both entries', async ({
  context,
}) => {
  const first = await context.newPage();
  const second = await context.newPage();
  await signIn(first);
  // A new user starts with the free plan's 300 trial credits.
  await expect(first.getByTestId('credit-balance')).toHaveText('300');
  await second.goto(`${baseUrl()}/credit-log`);
  await expect(second.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');

  admin('grant-credits', E2E_USER.email, '1250', '--reference', 'welcome bonus');

  for (const page of [first, second]) await expect(page.getByTestId('credit-balance')).toHaveText('1,550');

  await second.reload();
  const table = second.getByTestId('data-table');
  await expect(table.getByRole('row').nth(1)).toContainText('One-time credit');
  await expect(table.getByRole('row').nth(1)).toContainText('+1,250');
  await expect(table).toContainText('Trial credits');
  await expect(table).toContainText('+300');
  await expect(second.getByText('Displaying 2 of 2 entries.')).toBeVisible();
  await expectAccessible(second, 'credit log');
});
