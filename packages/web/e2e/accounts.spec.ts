import { expect, test } from '@playwright/test';
import { admin, baseUrl, signIn } from './support';

test('a new user connects the test inbox, tests it, saves it, and reads the test message', async ({ page }) => {
  const user = { email: `inbox-${Date.now()}@example.com`, password: 'secret123', name: 'Ines Inbox' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);

  await page.goto(`${baseUrl()}/settings/accounts`);
  await page.getByTestId('connect-test-inbox').click();
  const form = page.getByTestId('account-form');
  await form.getByLabel('Account Name').fill('My test inbox');
  // Save waits for a successful test.
  await expect(form.getByTestId('account-save')).toBeDisabled();
  await form.getByTestId('smtp-test').click();
  await expect(form.getByText(`A test message was sent to ${user.email}`)).toBeVisible();
  await form.getByTestId('account-save').click();

  const item = page.locator('[data-testid^="account-item-"]');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('My test inbox');
  await expect(item).toContainText('Primary Account');

  await page.goto(`${baseUrl()}/test-inbox`);
  const table = page.getByTestId('data-table');
  await expect(table).toContainText('Sendwell SMTP test');
  await expect(table).toContainText(user.email);
  await table.getByText('Sendwell SMTP test').click();
  const preview = page.getByTestId('message-preview');
  await expect(preview).toBeVisible();
  await expect(preview.locator('iframe')).toHaveAttribute('sandbox', '');
  await expect(preview.frameLocator('iframe').getByText('Sendwell can send through')).toBeVisible();
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
  await expect(page.getByRole('link', { name: /subscription|upgrade/i }).first()).toHaveAttribute(
    'href',
    '/settings/subscription',
  );
});
