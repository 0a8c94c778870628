import { expect, test } from '@playwright/test';
import {
  accountOf,
  admin,
  baseUrl,
  connectTestInbox,
  expectAccessible,
  inboxOf,
  seedList,
  signIn,
  withDatabase,
  writeHtmlMessage,
} from './support';

/**
 * Issue 31 in the browser: the pre-send checklist in Send Email's confirmation, and a finished
 * send sent again from its History page to those who did not open it.
 */

const user = { email: `engagement-${Date.now()}@example.com`, password: 'secret123', name: 'Eve Engaged' };
const MEMBERS = ['ann@example.com', 'bob@example.com', 'cy@example.com'];

/** The three members on the user's test-inbox account. */
const seedMembers = async () => {
  const { userId, accountId } = await accountOf(user.email);
  const listId = await seedList({
    userId,
    accountId,
    alias: 'members',
    name: 'Members',
    members: MEMBERS,
    verified: true,
  });
  return { accountId: Number(accountId), listId: Number(listId) };
};

test('checks a send before it goes, then sends it again to those who did not open it', async ({ page }) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);
  await connectTestInbox(page);
  const { accountId } = await seedMembers();

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Eve');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Members/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Engagement journey');
  await writeHtmlMessage(page, '<p>Hello {{name}}, here is our news.</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  // The confirmation carries the checklist: three groups, each opening to its items.
  const confirm = page.getByRole('dialog', { name: 'Send this email?' });
  const checklist = confirm.getByTestId('pre-send-checklist');
  await expect(checklist).toBeVisible({ timeout: 20_000 });
  await expect(checklist.getByTestId('pre-send-domain')).toBeVisible();
  await expect(checklist.getByTestId('pre-send-message')).toContainText('of 10');
  await expect(checklist.getByTestId('pre-send-lists')).toBeVisible();
  await checklist.getByRole('button', { name: /Lists/ }).click();
  // Every member is verified: the checklist says so, and no warning stands above it.
  await expect(checklist.getByText('Unverified addresses')).toBeVisible();
  await expect(confirm.getByTestId('unverified-warning')).toHaveCount(0);
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

test('pauses a send whose addresses bounce, says why on its progress card, and goes on when resumed', async ({
  page,
}) => {
  const sender = { email: `breaker-${Date.now()}@example.com`, password: 'secret123', name: 'Bo Bounce' };
  admin('create-user', sender.email, '--name', sender.name, '--password', sender.password, '--plan', '3');
  await signIn(page, sender);
  await connectTestInbox(page);
  // 300 members, every fifth at bounce.test, whose addresses the test inbox refuses (550 5.1.1).
  const { userId, accountId } = await accountOf(sender.email);
  await seedList({
    userId,
    accountId,
    alias: 'old',
    name: 'Old list',
    members: Array.from({ length: 300 }, (_, index) => ({
      email: (index + 1) % 5 === 0 ? `gone${index + 1}@bounce.test` : `m${index + 1}@example.com`,
      fullname: '',
    })),
    verified: true,
  });

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Bo');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Old list/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Breaker journey');
  await writeHtmlMessage(page, '<p>Hello from an old list.</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('dialog', { name: 'Send this email?' }).getByRole('button', { name: 'Yes, send it' }).click();

  const progress = page.getByTestId('send-progress');
  await expect(progress.getByTestId('send-status')).toHaveText('paused', { timeout: 60_000 });
  const reason = progress.getByTestId('breaker-reason');
  await expect(reason).toContainText('Paused by Sendwell to protect your sender');
  // Judged at 200 messages (the claim that reached them), past the account's 5 %.
  await expect(reason).toContainText(
    /Hard bounces reached \d+% \(\d+ of the first 200 messages\), above your account's limit of 5%/,
  );
  await expectAccessible(page, 'progress card paused by the circuit breaker');
  // The rest waited: 100 of the 300 were never handed over.
  const waiting = await withDatabase(
    async (client) =>
      (
        await client.query<{ n: number }>(
          `select count(*)::int as n from send_recipients r join sends s on s.id = r.send_id
            where s.subject = 'Breaker journey' and r.status = 'pending'`,
        )
      ).rows[0]!.n,
  );
  expect(waiting).toBe(100);

  await progress.getByRole('button', { name: 'Resume' }).click();
  await expect(progress.getByTestId('send-status')).toHaveText('finished', { timeout: 60_000 });
  await expect(progress.getByTestId('breaker-reason')).toHaveCount(0);
});
