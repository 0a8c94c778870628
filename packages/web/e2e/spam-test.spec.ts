import { expect, test } from '@playwright/test';
import { admin, baseUrl, connectTestInbox, expectAccessible, signIn, tabTo } from './support';

// The second journey signs in as the first one's user, with what it left (credits, a template).
test.describe.configure({ mode: 'serial' });

const user = { email: `spam-test-${Date.now()}@example.com`, password: 'secret123', name: 'Sam Spamtest' };

test('tests an email from Testing Sending Mails with the keyboard: credits confirmed, the score live, the result and history pages', async ({
  page,
}) => {
  // The free plan's 300 trial credits: three tests.
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);
  await connectTestInbox(page);

  await page.goto(`${baseUrl()}/tools/mail-testing`);
  await expect(page.getByRole('heading', { name: 'Testing Sending Mails' })).toBeVisible();
  await expectAccessible(page, 'spam test form');

  // Keyboard only: the sender name, the subject and the message, then Test Email.
  await tabTo(page, page.getByLabel('Sender Name'));
  await page.keyboard.type('Sam from Acme');
  await tabTo(page, page.getByLabel('Subject'));
  await page.keyboard.type('Our November news');
  // The message: a new one opens in the visual editor with its first text open for typing.
  await tabTo(page, page.getByRole('textbox', { name: 'Message', exact: true }));
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Hello! This month we baked three new breads; the recipes are on our site.');
  await tabTo(page, page.getByRole('button', { name: 'Test Email' }));
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: "Test your email's spam score" });
  await expect(confirm).toContainText('A spam test costs 100 credits; you have 300.');
  // The free pre-send check (issue 31 §1) is in the confirmation: the domain and the message, no lists.
  const checklist = confirm.getByTestId('pre-send-checklist');
  await expect(checklist).toBeVisible({ timeout: 20_000 });
  await expect(checklist.getByTestId('pre-send-message')).toContainText('of 10');
  await expect(checklist.getByTestId('pre-send-lists')).toHaveCount(0);
  await expectAccessible(page, 'spam test confirmation');
  await expect(confirm.getByRole('button', { name: 'Send Test' })).toBeFocused();
  await page.keyboard.press('Enter');

  // The score arrives over the realtime channel, long before the first 15-second poll.
  await expect(page.getByRole('heading', { name: 'Spam Test Result' })).toBeVisible({ timeout: 20_000 });
  const score = page.getByTestId('spam-score');
  await expect(score).toHaveAttribute('aria-label', /^Score \d+(\.\d)? out of 10: /);
  await expect(page.getByTestId('credit-balance')).toHaveText('200');
  await expect(page.getByRole('region', { name: 'Authentication', exact: true })).toContainText('SPF');
  await expect(page.getByTestId('check-list-unsubscribe')).toContainText('List-Unsubscribe');
  await expect(page.getByText('rspamd: scored')).toBeVisible();
  await expect(page.getByText('SpamAssassin: scored')).toBeVisible();
  await expectAccessible(page, 'spam test result');
  if (process.env.E2E_SCREENSHOTS) await page.screenshot({ path: '/tmp/spam-result.png', fullPage: true });
  await page.getByRole('tab', { name: 'Headers as received' }).click();
  await expect(page.getByText(/^Subject: Our November news$/m)).toBeVisible();
  await page.getByRole('button', { name: 'Save as template' }).click();
  const save = page.getByRole('dialog', { name: 'Save as template' });
  await expect(save.getByLabel('Template name')).toHaveValue('Our November news');
  await save.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your template has been saved.')).toBeVisible();

  await page.getByRole('link', { name: 'Test history' }).click();
  const history = page.getByRole('table', { name: 'Spam test history' });
  await expect(history).toContainText('Our November news');
  await expect(history).toContainText('Scored');
  await expect(history).toContainText('/ 10');
  await expectAccessible(page, 'spam test history');
});

test('Test My Mail on Send Email: no lists needed, the score in a dialog, then the result page', async ({ page }) => {
  await signIn(page, user);
  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Sam from Acme');
  await page.getByLabel('Subject').fill('Weekend offer');
  // The template saved by the first journey is offered on the form.
  await page.getByRole('button', { name: 'Change Template' }).click();
  await page
    .getByRole('dialog', { name: 'Choose a template' })
    .getByRole('button', { name: 'Use Our November news' })
    .click();
  await page.getByRole('button', { name: 'Test My Mail' }).click();
  const confirm = page.getByRole('dialog', { name: "Test your email's spam score" });
  await expect(confirm).toContainText('you have 200');
  await confirm.getByRole('button', { name: 'Send Test' }).click();
  const result = page.getByRole('dialog', { name: 'Your spam test result' });
  await expect(result.getByTestId('spam-score')).toBeVisible({ timeout: 20_000 });
  await expectAccessible(page, 'spam test result dialog');
  await result.getByRole('link', { name: 'Go To Result Page' }).click();
  await expect(page.getByRole('heading', { name: 'Spam Test Result' })).toBeVisible();
  await expect(page.getByText('“Weekend offer”')).toBeVisible();
  await expect(page.getByTestId('credit-balance')).toHaveText('100');

  // 100 left: the button is still offered; below 100 it is not (spec §5).
  await page.goto(`${baseUrl()}/tools/mail-testing`);
  await expect(page.getByRole('button', { name: 'Test Email' })).toBeVisible();
});
