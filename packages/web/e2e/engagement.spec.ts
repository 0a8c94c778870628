import { expect, type Page, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, signIn, withDatabase } from './support';

/**
 * Issue 31 in the browser: the pre-send checklist in Send Email's confirmation, and a finished
 * send sent again from its History page to those who did not open it.
 */

const user = { email: `engagement-${Date.now()}@example.com`, password: 'secret123', name: 'Eve Engaged' };
const MEMBERS = ['ann@example.com', 'bob@example.com', 'cy@example.com'];

const seedList = () =>
  withDatabase(async (client) => {
    const { rows } = await client.query<{ user_id: string; account_id: string }>(
      `select u.id as user_id, a.id as account_id from users u join sending_accounts a on a.user_id = u.id
        where u.email = $1`,
      [user.email],
    );
    const { user_id: userId, account_id: accountId } = rows[0]!;
    const list = await client.query<{ id: string }>(
      `insert into mailing_lists (user_id, account_id, alias, domain, address, name)
       values ($1, $2, 'members', 'example.com', 'members@example.com', 'Members') returning id`,
      [userId, accountId],
    );
    for (const email of MEMBERS) {
      await client.query(
        'insert into list_members (user_id, list_id, account_id, email, fullname, verified) values ($1, $2, $3, $4, $5, true)',
        [userId, list.rows[0]!.id, accountId, email, email.split('@')[0]],
      );
    }
    return { accountId: Number(accountId), listId: Number(list.rows[0]!.id) };
  });

const connectTestInbox = async (page: Page) => {
  await page.goto(`${baseUrl()}/settings/accounts`);
  await page.getByTestId('connect-test-inbox').click();
  const accountForm = page.getByTestId('account-form');
  await accountForm.getByLabel('Account Name').fill('Test inbox');
  await accountForm.getByTestId('smtp-test').click();
  await expect(accountForm.getByText('A test message was sent')).toBeVisible();
  await accountForm.getByTestId('account-save').click();
  await expect(page.locator('[data-testid^="account-item-"]')).toHaveCount(1);
};

/** The messages the test inbox holds with this subject, by recipient. */
const inboxOf = (subject: string) =>
  withDatabase(
    async (client) =>
      (
        await client.query<{ rcpt_to: string[]; html_body: string }>(
          'select rcpt_to, html_body from test_inbox_messages where subject = $1 order by id',
          [subject],
        )
      ).rows,
  );

test('checks a send before it goes, then sends it again to those who did not open it', async ({ page }) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);
  await connectTestInbox(page);
  const { accountId } = await seedList();

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Eve');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Members/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Engagement journey');
  await page.getByLabel('HTML message').fill('<p>Hello {{name}}, here is our news.</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  // The confirmation carries the checklist: three groups, each opening to its items.
  const confirm = page.getByRole('dialog', { name: 'Send this email?' });
  const checklist = confirm.getByTestId('pre-send-checklist');
  await expect(checklist).toBeVisible({ timeout: 20_000 });
  await expect(checklist.getByTestId('pre-send-domain')).toBeVisible();
  await expect(checklist.getByTestId('pre-send-message')).toContainText('of 10');
  await expect(checklist.getByTestId('pre-send-lists')).toBeVisible();
  await checklist.getByRole('button', { name: /Lists/ }).click();
  await expect(checklist.getByText('Unverified addresses')).toBeVisible();
  await expectAccessible(page, 'send confirmation with the pre-send checklist open');
  await confirm.getByRole('button', { name: 'Yes, send it' }).click();
  await expect(page.getByTestId('send-progress')).toContainText('finished', { timeout: 30_000 });

  // Ann's mail client loads the open pixel of her message.
  const first = await inboxOf('Engagement journey');
  expect(first.map((message) => message.rcpt_to[0]).sort()).toEqual(MEMBERS);
  const ann = first.find((message) => message.rcpt_to[0] === 'ann@example.com')!;
  const pixel = ann.html_body.match(/src="([^"]*\/api\/t\/o\/[^"]+)"/)![1]!.replace(/&amp;/g, '&');
  expect((await page.request.get(pixel)).status()).toBe(200);

  // From the send's History page: again, to those who did not open it.
  const sendId = await withDatabase(
    async (client) =>
      (await client.query<{ id: string }>(`select id from sends where subject = 'Engagement journey'`)).rows[0]!.id,
  );
  await page.goto(`${baseUrl()}/history/details/${accountId}/${sendId}`);
  await page.getByRole('button', { name: 'Send again to…' }).click();
  await page.getByRole('menuitem', { name: 'Send to those who did not open' }).click();
  const dialog = page.getByRole('dialog', { name: 'Send to those who did not open' });
  await expect(dialog.getByTestId('engagement-count')).toContainText(
    '2 recipients who did not open it will get “Engagement journey” again.',
  );
  await expectAccessible(page, 'send again to those who did not open');
  await dialog.getByLabel(/Subject/).fill('Engagement journey, in case you missed it');
  await dialog.getByRole('button', { name: 'Send to 2' }).click();
  await expect(page.getByText('Your email is on its way to 2 recipients.')).toBeVisible();
  // The new send's own History page; its two messages arrive, to Bob and Cy only.
  await expect(page.getByRole('heading', { name: 'History: Engagement journey, in case you missed it' })).toBeVisible();
  await expect
    .poll(
      async () =>
        (await inboxOf('Engagement journey, in case you missed it')).map((message) => message.rcpt_to[0]).sort(),
      { timeout: 30_000 },
    )
    .toEqual(['bob@example.com', 'cy@example.com']);
});
