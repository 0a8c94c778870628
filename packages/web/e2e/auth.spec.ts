import { expect, test } from '@playwright/test';
import { baseUrl, E2E_USER, expectAccessible, signIn } from './support';

test('a signed-out visitor is sent to sign in, and wrong credentials say so', async ({ page }) => {
  await page.goto(`${baseUrl()}/notifications`);
  await expect(page).toHaveURL(/\/login/);
  await expectAccessible(page, 'sign-in');
  await page.getByLabel('Email').fill(E2E_USER.email);
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('These credentials do not match our records.')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await expectAccessible(page, 'sign-in with an error');
});

test('signing in opens the shell with the user, the credit slot, live status and only the areas that exist', async ({
  page,
}) => {
  await signIn(page);
  await expect(page.getByTestId('credit-balance')).toBeVisible();
  await expect(page.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');
  const navigation = page.getByRole('navigation');
  await expect(navigation.getByRole('link', { name: 'Dashboard' })).toBeVisible();
  await expect(navigation.getByRole('link', { name: 'Notifications' })).toBeVisible();
  await expect(navigation.getByRole('link', { name: 'Mailing Lists' })).toBeVisible();
  await expect(navigation.getByRole('link', { name: 'Send Email' })).toBeVisible();
  // Every area is built now: drip campaigns in the list, the spam test under Tools.
  await expect(navigation.getByRole('link', { name: 'Drip Campaigns' })).toBeVisible();
  await navigation.getByRole('button', { name: 'Tools' }).click();
  await expect(navigation.getByRole('link', { name: 'Spam Test' })).toBeVisible();
  await expect(navigation.getByRole('link', { name: 'History' })).toBeVisible();
  await expectAccessible(page, 'dashboard');
});

test('contact and not-found screens pass axe', async ({ page }) => {
  await page.goto(`${baseUrl()}/contact-us`);
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expectAccessible(page, 'contact us');
  await signIn(page);
  await page.goto(`${baseUrl()}/no-such-screen`);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expectAccessible(page, 'page not found');
});

test('signing out ends the session and the app asks to sign in again', async ({ page }) => {
  await signIn(page);
  await page.getByTestId('user-name').click();
  await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
  await expectAccessible(page, 'account menu');
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(`${baseUrl()}/`);
  await expect(page).toHaveURL(/\/login/);
  const status = await page.evaluate(async () => (await fetch('/api/user-information')).status);
  expect(status).toBe(401);
});

test('the forgotten-password form answers without revealing whether the account exists', async ({ page }) => {
  await page.goto(`${baseUrl()}/login`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page.getByLabel('Email')).toBeVisible();
  await expectAccessible(page, 'forgot password');
  await page.getByLabel('Email').fill('nobody@example.com');
  await page.getByRole('button', { name: /send/i }).click();
  await expect(page.getByText(/If an account exists for that email/)).toBeVisible();
  await expectAccessible(page, 'forgot password, sent');
});
