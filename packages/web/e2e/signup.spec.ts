import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { baseUrl, expectAccessible, journeyUser, signIn } from './support';

/**
 * Issue 48 §1 and §4 end to end: a list's signup form pasted into a plain page of another
 * site, a visitor subscribing through it (the captcha step on Sendwell's side), the
 * confirmation email read from the test inbox and its button, the member with its consent
 * record, the preferences page of the email's footer leaving one list, and the person's
 * data exported and erased from the member screen.
 */

/** A site of someone else's, on another origin: one plain page holding the pasted form. */
const startOtherSite = async (formHtml: string) => {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Friends of the bakery</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Join our newsletter</h1>${formHtml}</main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/join`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const createList = async (page: Page, alias: string, name: string) => {
  await page.goto(`${baseUrl()}/mailing-lists`);
  await page.getByRole('button', { name: 'Create List' }).first().click();
  const modal = page.getByRole('dialog', { name: 'Create List' });
  await modal.getByLabel('Alias').fill(alias);
  await modal.getByLabel(/^Name/).fill(name);
  await modal.getByRole('button', { name: 'Create List' }).click();
  const table = page.getByRole('table', { name: 'Mailing lists' });
  await expect(table).toContainText(name);
  return (await table
    .getByText(new RegExp(`^${alias}@`))
    .first()
    .textContent())!.trim();
};

/** The page is no wider than a phone's screen (WCAG 1.4.10 at 390 px). */
const expectFitsPhone = async (page: Page) => {
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 800 });
};

test('a visitor subscribes through a form on another site, confirms from the test inbox, and leaves one list from the preferences page', async ({
  page,
  browser,
}) => {
  const user = journeyUser('Signup Sam');
  await signIn(page, user);
  await page.goto(`${baseUrl()}/settings/accounts`);
  await page.getByTestId('connect-test-inbox').click();
  const accountForm = page.getByTestId('account-form');
  await accountForm.getByLabel('Account Name').fill('Test inbox');
  await accountForm.getByTestId('smtp-test').click();
  await expect(accountForm.getByText('A test message was sent')).toBeVisible();
  await accountForm.getByTestId('account-save').click();
  await expect(page.locator('[data-testid^="account-item-"]')).toHaveCount(1);

  await createList(page, 'offers', 'Offers');
  const address = await createList(page, 'friends', 'Friends');

  // The list's signup form: double opt-in by default; the words people agree to.
  await page.getByRole('button', { name: `Actions for ${address}` }).click();
  await page.getByRole('menuitem', { name: 'Signup Form' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Signup form' })).toBeVisible();
  await expect(page.getByLabel('Ask new subscribers to confirm by email')).toBeChecked();
  await expectAccessible(page, 'signup form settings');
  await page.getByLabel('What subscribers agree to').fill('I agree to receive the Friends newsletter once a month.');
  await page.getByRole('button', { name: 'Save the signup form' }).click();
  await expect(page.getByText('The signup form has been saved.')).toBeVisible();
  const snippet = await page.getByLabel('Embeddable form (HTML)').inputValue();
  expect(snippet).toContain('I agree to receive the Friends newsletter once a month.');
  expect(snippet).not.toContain('<script');

  // A visitor, on someone else's site, with the pasted form and none of our JavaScript.
  const site = await startOtherSite(snippet);
  const visitor = await browser.newContext();
  const visitorPage = await visitor.newPage();
  const email = `reader-${Date.now()}@example.org`;
  try {
    await visitorPage.goto(site.url);
    await expectAccessible(visitorPage, 'the pasted signup form on another site');
    await visitorPage.getByLabel(/^Email/).fill(email);
    await visitorPage.getByLabel(/^First name/).fill('Rita');
    await visitorPage.getByLabel(/^Last name/).fill('Reader');
    await visitorPage.getByRole('button', { name: 'Subscribe to Friends' }).click();

    // On Sendwell's side: the details kept, the captcha to pass, the same words to agree to.
    await expect(visitorPage.getByRole('heading', { level: 1, name: 'Subscribe to Friends' })).toBeVisible();
    await expect(visitorPage.getByText('One more step')).toBeVisible();
    await expect(visitorPage.getByLabel(/^Email/)).toHaveValue(email);
    await expect(visitorPage.getByText('I agree to receive the Friends newsletter once a month.')).toBeVisible();
    await expectAccessible(visitorPage, 'signup, the captcha step');
    await visitorPage.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await expect(visitorPage.getByRole('heading', { level: 1, name: 'Almost done: check your inbox' })).toBeVisible({
      timeout: 30_000,
    });
    await expectAccessible(visitorPage, 'signup, check your inbox');

    // The confirmation arrives in the test inbox, from the list's address.
    const subject = 'Please confirm your subscription to Friends';
    let message: { id: number } | undefined;
    await expect
      .poll(
        async () => {
          const inbox = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages?per_page=50`)).json();
          message = inbox.data.find((item: { subject: string; rcpt_to: string[] }) => item.subject === subject);
          return message !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await page.goto(`${baseUrl()}/test-inbox`);
    await page.getByTestId('data-table').getByRole('row').filter({ hasText: email }).getByText(subject).click();
    const preview = page.getByTestId('message-preview').frameLocator('iframe');
    await expect(preview.getByRole('link', { name: 'open this link and press the button' })).toBeVisible();
    await expectAccessible(page, 'test inbox, the confirmation open');
    const html = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages/${message!.id}/html`)).text();
    const confirmLink = html.match(/href="([^"]*\/subscribe\/confirm\/[A-Za-z0-9_-]+)"/)![1]!;
    const preferencesLink = html.match(/href="([^"]*\/preferences\/[0-9a-z]+-[0-9a-f]+)"/)![1]!;

    // Still unconfirmed: the member waits, and gets nothing but this email.
    await page.goto(`${baseUrl()}/mailing-lists`);
    await page.getByRole('table', { name: 'Mailing lists' }).getByRole('link', { name: address }).click();
    const members = page.getByRole('table', { name: `Members of ${address}` });
    await expect(members.getByRole('row').filter({ hasText: email })).toContainText('Unconfirmed');

    await visitorPage.goto(confirmLink);
    await expect(visitorPage.getByRole('heading', { level: 1, name: 'Confirm your subscription' })).toBeVisible();
    await expectAccessible(visitorPage, 'confirmation link');
    await visitorPage.getByRole('button', { name: 'Yes, subscribe me' }).click();
    await expect(visitorPage.getByRole('heading', { level: 1, name: 'You are subscribed' })).toBeVisible();
    await expectAccessible(visitorPage, 'subscription confirmed');

    // On the list, subscribed, with where the consent came from.
    await page.reload();
    const row = members.getByRole('row').filter({ hasText: email });
    await expect(row).toContainText('Subscribed');
    await expect(row).toContainText('Rita Reader');
    await page.getByRole('button', { name: `Actions for ${email}` }).click();
    await page.getByRole('menuitem', { name: 'Consent' }).click();
    const consent = page.getByRole('dialog', { name: `Consent of ${email}` });
    // Browsers send another site only its origin as the referrer (strict-origin-when-cross-origin).
    await expect(consent).toContainText(`Signup form (embedded form on ${new URL(site.url).origin}/)`);
    await expect(consent).toContainText('I agree to receive the Friends newsletter once a month.');
    await expect(consent).toContainText('127.0.0.1');
    await expect(consent.getByRole('row', { name: /Confirmed/ })).not.toContainText('not yet');
    await expectAccessible(page, 'member consent dialog');
    await consent.getByRole('button', { name: 'Close' }).click();

    // On the other list too (added by hand), then the footer's preferences page leaves that one only.
    const csrf = ((await (await page.request.get(`${baseUrl()}/api/csrf`)).json()) as { token: string }).token;
    const lists = await (await page.request.get(`${baseUrl()}/api/mailing-lists?per_page=10`)).json();
    const offers = lists.data.find((list: { name: string }) => list.name === 'Offers') as { id: number };
    const added = await page.request.post(`${baseUrl()}/api/mailing-lists/add-member`, {
      data: { listId: offers.id, email, fullname: 'Rita Reader' },
      headers: { 'x-csrf-token': csrf },
    });
    expect(added.status()).toBe(200);
    await visitorPage.goto(preferencesLink);
    await expect(visitorPage.getByRole('heading', { level: 1, name: 'Your email preferences' })).toBeVisible();
    const listItems = visitorPage.getByRole('listitem');
    await expect(listItems.filter({ hasText: 'Friends' })).toContainText('Subscribed');
    await expect(listItems.filter({ hasText: 'Offers' })).toContainText('Subscribed');
    await expectAccessible(visitorPage, 'preferences page');
    await expectFitsPhone(visitorPage);
    await visitorPage.getByRole('button', { name: 'Unsubscribe from Offers' }).click();
    await expect(visitorPage.getByRole('status')).toHaveText('You are unsubscribed from that list.');
    await expect(listItems.filter({ hasText: 'Offers' })).toContainText('Unsubscribed');
    await expect(listItems.filter({ hasText: 'Friends' })).toContainText('Subscribed');
    await expectAccessible(visitorPage, 'preferences page, one list left');
  } finally {
    await visitor.close();
    await site.close();
  }

  // The person's data on request, from the member screen: everything in a file, then erased.
  await page.reload();
  await page.getByRole('button', { name: `Actions for ${email}` }).click();
  await page.getByRole('menuitem', { name: 'Export their data' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export this person’s data' });
  await expectAccessible(page, 'export a person’s data dialog');
  const downloading = page.waitForEvent('download');
  await exportDialog.getByRole('button', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('person-data.json');
  const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8')) as {
    tables: Record<string, unknown[]>;
  };
  expect(exported.tables.list_members).toHaveLength(2);
  expect(exported.tables.member_consents).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ source: 'form', consent_text: expect.stringContaining('Friends') }),
    ]),
  );

  await page.getByRole('button', { name: `Actions for ${email}` }).click();
  await page.getByRole('menuitem', { name: 'Erase their data' }).click();
  const eraseDialog = page.getByRole('dialog', { name: 'Erase this person’s data?' });
  await expect(eraseDialog.getByRole('button', { name: 'Erase everything' })).toBeDisabled();
  await eraseDialog.getByLabel('Type the address to confirm').fill(email);
  await expectAccessible(page, 'erase a person’s data dialog');
  await eraseDialog.getByRole('button', { name: 'Erase everything' }).click();
  await expect(page.getByText(`about ${email}`)).toBeVisible();
  await expect(page.getByRole('table', { name: `Members of ${address}` })).not.toContainText(email);
});
