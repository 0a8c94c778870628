import { expect, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, signIn } from './support';

test('a new user connects the test inbox, tests it, saves it, and reads the test message', async ({ page }) => {
  const user = { email: `inbox-${Date.now()}@example.com`, password: 'secret123', name: 'Ines Inbox' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);

  await page.goto(`${baseUrl()}/settings/accounts`);
  await expect(page.getByTestId('connect-test-inbox')).toBeVisible();
  await expectAccessible(page, 'sending accounts, none yet');
  await page.getByTestId('connect-test-inbox').click();
  const form = page.getByTestId('account-form');
  await expectAccessible(page, 'test inbox account form');
  await form.getByLabel('Account Name').fill('My test inbox');
  // Save waits for a successful test.
  await expect(form.getByTestId('account-save')).toBeDisabled();
  await form.getByTestId('smtp-test').click();
  await expect(form.getByText(`A test message was sent to ${user.email}`)).toBeVisible();
  await expectAccessible(page, 'test inbox account form, tested');
  await form.getByTestId('account-save').click();

  const item = page.locator('[data-testid^="account-item-"]');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('My test inbox');
  await expect(item).toContainText('Primary Account');
  await expectAccessible(page, 'sending accounts');

  await page.goto(`${baseUrl()}/test-inbox`);
  const table = page.getByTestId('data-table');
  await expect(table).toContainText('Sendwell SMTP test');
  await expect(table).toContainText(user.email);
  await expectAccessible(page, 'test inbox');
  await table.getByText('Sendwell SMTP test').click();
  const preview = page.getByTestId('message-preview');
  await expect(preview).toBeVisible();
  await expect(preview.locator('iframe')).toHaveAttribute('sandbox', '');
  await expect(preview.frameLocator('iframe').getByText('Sendwell can send through')).toBeVisible();
  await expectAccessible(page, 'test inbox, message open');
});

test('a free-plan user is told to upgrade before adding an outside account', async ({ page }) => {
  const user = { email: `free-${Date.now()}@example.com`, password: 'secret123', name: 'Fred Free' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);
  await page.goto(`${baseUrl()}/settings/accounts`);
  await page.getByTestId('add-account').click();
  const form = page.getByTestId('account-form');
  await form.getByText('Mailgun', { exact: true }).click();
  await expect(page.getByText('Upgrade your plan to create a new account!')).toBeVisible();
  await expectAccessible(page, 'account form, upgrade needed');
  const upgrade = page.getByRole('link', { name: /subscription|upgrade/i }).first();
  await expect(upgrade).toHaveAttribute('href', '/settings/subscription');
  await upgrade.click();
  await expect(page.getByTestId('subscription-plan-2')).toBeVisible();
  await expectAccessible(page, 'subscription');
});
