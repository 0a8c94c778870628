import { expect, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible } from './support';

test('a visitor registers on the free plan with the real captcha, and sees credits arrive live in a second tab', async ({
  context,
}) => {
  const email = `newcomer-${Date.now()}@example.com`;
  const page = await context.newPage();
  await page.goto(`${baseUrl()}/login`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect(page).toHaveURL(/\/register$/);

  // Step 1: the plans from the package list; the free plan (id 2) is chosen already.
  await expect(page.getByTestId('register-plan-2')).toContainText('Free');
  await expect(page.getByTestId('register-plan-3')).toContainText('Pro');
  // Without Stripe configured, paid plans say so instead of asking for a card.
  await expect(page.getByText(/Paid plans are not available on this server/).first()).toBeVisible();
  await expectAccessible(page, 'registration, plans');
  await page.getByRole('button', { name: 'Next' }).click();

  // Step 2: the form. Submitting before the captcha is solved gets the spec's message.
  await page.getByLabel('Full Name').fill('Nora Newcomer');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('secret123');
  await page.getByLabel('I accept the terms of service').check();
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('Please verify the captcha!')).toBeVisible();
  await expectAccessible(page, 'registration, form');

  // Back keeps what was typed.
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByLabel('Full Name')).toHaveValue('Nora Newcomer');

  // The real proof of work, solved by the widget's workers in Chromium.
  await page.getByTestId('captcha').getByText("I'm not a robot").click();
  await expect(page.getByTestId('captcha')).toHaveAttribute('data-state', 'verified', { timeout: 30_000 });
  await expectAccessible(page, 'registration, captcha solved');
  await page.getByTestId('register-submit').click();

  // Signed in, on the dashboard, with the free plan's trial credits in the header.
  await expect(page.getByTestId('user-name')).toHaveText('Nora Newcomer');
  await expect(page.getByTestId('credit-balance')).toHaveText('300');

  const second = await context.newPage();
  await second.goto(`${baseUrl()}/credit-log`);
  await expect(second.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');
  admin('grant-credits', email, '700', '--reference', 'launch offer');
  for (const tab of [page, second]) await expect(tab.getByTestId('credit-balance')).toHaveText('1,000');

  await second.reload();
  const table = second.getByTestId('data-table');
  await expect(table.getByRole('row').nth(1)).toContainText('+700');
  await expect(table).toContainText('Trial credits');
  await expect(second.getByText('Displaying 2 of 2 entries.')).toBeVisible();
  await expectAccessible(second, 'credit log');
});

test('a registration the server refuses resets the captcha and shows the field’s message', async ({ page }) => {
  await page.goto(`${baseUrl()}/register`);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Full Name').fill('Taken Tom');
  // The e2e owner's address is taken.
  await page.getByLabel('Email').fill('owner@example.com');
  await page.getByLabel('Password').fill('secret123');
  await page.getByLabel('I accept the terms of service').check();
  await page.getByTestId('captcha').getByText("I'm not a robot").click();
  await expect(page.getByTestId('captcha')).toHaveAttribute('data-state', 'verified', { timeout: 30_000 });
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('The email has already been taken.')).toBeVisible();
  await expectAccessible(page, 'registration, refused');
  await expect(page.getByTestId('captcha')).not.toHaveAttribute('data-state', 'verified');
});
