import { expect, test } from '@playwright/test';
import {
  accountOf,
  admin,
  baseUrl,
  connectTestInbox,
  expectAccessible,
  seedList,
  signIn,
  withDatabase,
  writeHtmlMessage,
} from './support';

/**
 * The Send Email journey (issue 6): compose from a template, preview, send to two
 * overlapping lists through the local test inbox, see the duplicate warning, find each
 * recipient's single message, open one, click a link, unsubscribe with one click, and
 * find the member unsubscribed.
 */
test('sends to overlapping lists once each, then tracks an open, a click and a one-click unsubscribe', async ({
  page,
}) => {
  const user = { email: `send-${Date.now()}@example.com`, password: 'secret123', name: 'Sam Sender' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);

  await connectTestInbox(page);

  // Two lists that share bob@ (in another case), seeded as an import would leave them.
  const { userId, accountId } = await accountOf(user.email);
  const listIds: number[] = [];
  for (const [index, members] of [
    ['ann@example.com', 'bob@example.com'],
    ['BOB@example.com', 'cy@example.com'],
  ].entries()) {
    const listId = await seedList({
      userId,
      accountId,
      alias: `team${index}`,
      name: `Team ${index + 1}`,
      members: members.map((email) => ({ email, fullname: email.split('@')[0]!.toLowerCase() })),
    });
    listIds.push(Number(listId));
  }

  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });

  await page.goto(`${baseUrl()}/send-email`);
  await expect(page.getByLabel('Sender Name')).toBeVisible();
  await expectAccessible(page, 'Send Email');
  await page.getByLabel('Sender Name').fill('Sam <img src=x onerror=alert(1)>');
  const lists = page.getByLabel('Mailing lists');
  await lists.click();
  await page.getByRole('option', { name: /Team 1/ }).click();
  await page.getByRole('option', { name: /Team 2/ }).click();
  await expectAccessible(page, 'Send Email, lists dropdown open');
  await page.keyboard.press('Escape');
  // A message written in HTML (the editor's HTML mode): a link back to Sendwell itself (the
  // test machine has no internet), and a script that must never run.
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Announcement</title></head>
<body style="margin:0;padding:0;background:#f4f6fb;font-family:Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%"><tr><td style="padding:32px;font-size:24px;font-weight:bold">Hello {{name::there}},</td></tr>
<tr><td style="padding:8px 32px;font-size:16px">We have something new to share with you.</td></tr>
<tr><td style="padding:16px 32px"><a href="${baseUrl()}/login?from=email">Read more</a></td></tr></table>
<script>window.parent.__pwned = true; alert("pwned")</script></body></html>`;
  await writeHtmlMessage(page, html);
  await page.getByLabel('Subject').fill('News for {{name::you}} <script>alert(2)</script>');
  const preview = page.frameLocator('iframe[title="Email preview"]');
  await expect(preview.getByText('Hello Ada Lovelace,')).toBeVisible();
  await expect(page.locator('iframe[title="Email preview"]')).toHaveAttribute('sandbox', '');
  await expectAccessible(page, 'Send Email, composed with a preview');
  // No script from the message, subject or sender name runs in the page or the preview (R15).
  expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const duplicates = page.getByRole('dialog').filter({ hasText: 'more than one of the chosen lists' });
  await expect(duplicates).toContainText('1 address is on more than one of the chosen lists');
  await expectAccessible(page, 'duplicate warning dialog');
  await duplicates.getByRole('button', { name: 'Continue' }).click();
  const confirm = page.getByRole('dialog').filter({ hasText: 'Yes, send it' });
  await expect(confirm).toBeVisible();
  // The lists hold unverified addresses: said once, here, with what it risks and costs (issue 45 §2).
  const unverified = confirm.getByTestId('unverified-warning');
  await expect(unverified).toContainText('never verified');
  await expect(unverified).toContainText('hurt your sender reputation');
  await expect(unverified).not.toContainText('spam score');
  await expect(unverified.getByTestId('unverified-cost')).toContainText('Verifying them costs');
  await expect(unverified.getByRole('button', { name: 'Verify, then send' })).toBeVisible();
  await expectAccessible(page, 'send confirmation dialog');
  await confirm.getByRole('button', { name: 'Yes, send it' }).click();

  const progress = page.getByTestId('send-progress');
  await expect(progress).toContainText('finished', { timeout: 30_000 });
  await expect(progress).toContainText('3 of 3');
  await expectAccessible(page, 'Send Email, send finished');

  // Each recipient once, bob@ included, in the test inbox.
  const inbox = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages?per_page=50`)).json();
  const sent = inbox.data.filter((item: { subject: string }) => item.subject.startsWith('News for'));
  expect(sent.map((item: { rcpt_to: string[] }) => item.rcpt_to[0]!.toLowerCase()).sort()).toEqual([
    'ann@example.com',
    'bob@example.com',
    'cy@example.com',
  ]);
  const ann = sent.find((item: { rcpt_to: string[] }) => item.rcpt_to[0] === 'ann@example.com');
  expect(ann.subject).toBe('News for ann <script>alert(2)</script>');

  // The sender reading their own message in the test inbox is no open (R33): it is shown
  // without its open pixel. The recipient's mail client loading the pixel is one.
  await page.goto(`${baseUrl()}/test-inbox`);
  const table = page.getByTestId('data-table');
  await table.getByRole('row').filter({ hasText: 'ann@example.com' }).getByText(ann.subject).click();
  const opened = page.getByTestId('message-preview').frameLocator('iframe');
  await expect(opened.getByText('Hello ann,')).toBeVisible();
  await expectAccessible(page, 'test inbox, the sent message open');
  const counts = async () =>
    withDatabase(async (client) => {
      const { rows } = await client.query(
        `select opened_count, clicked_count, unsubscribed_count from sends where $1 = any(list_ids)`,
        [listIds[0]],
      );
      return rows[0];
    });
  const shown = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages/${ann.id}/html`)).text();
  expect(shown).not.toContain('/api/t/o/');
  const stored = await withDatabase(
    async (client) =>
      (await client.query<{ html_body: string }>('select html_body from test_inbox_messages where id = $1', [ann.id]))
        .rows[0]!.html_body,
  );
  const pixel = stored.match(/src="([^"]*\/api\/t\/o\/[^"]+)"/)![1]!.replace(/&amp;/g, '&');
  expect((await page.request.get(pixel)).headers()['content-type']).toBe('image/gif');
  await expect.poll(async () => (await counts()).opened_count, { timeout: 15_000 }).toBe(1);
  // One open event: the inbox's view loaded no pixel of its own.
  const opens = await withDatabase(
    async (client) =>
      (
        await client.query<{ n: number }>(
          `select count(*)::int as n from delivery_events e join sends s on s.id = e.send_id
            where $1 = any(s.list_ids) and e.type = 'opened'`,
          [listIds[0]],
        )
      ).rows[0]!.n,
  );
  expect(opens).toBe(1);

  // The link goes through Sendwell's signed redirect to the stored target.
  const body = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages/${ann.id}/html`)).text();
  const click = body.match(/href="([^"]*\/api\/t\/c\/[^"]+)"/)![1]!.replace(/&amp;/g, '&');
  await page.goto(click);
  await expect(page).toHaveURL(/\/login\?from=email|\/$/);
  await expect.poll(async () => (await counts()).clicked_count).toBe(1);

  // One-click unsubscribe, the way a mailbox provider sends it (RFC 8058).
  const token = body.match(/\/unsubscribe\/([0-9a-z]+-[0-9a-f]+|[0-9a-f]{32})/)![1]!;
  const oneClick = await page.request.post(`${baseUrl()}/api/unsubscribe/${token}`, {
    form: { 'List-Unsubscribe': 'One-Click' },
  });
  expect(oneClick.status()).toBe(200);
  await expect.poll(async () => (await counts()).unsubscribed_count).toBe(1);

  await page.goto(`${baseUrl()}/mailing-lists/detail/${accountId}/${listIds[0]}`);
  const annRow = page.getByRole('row').filter({ hasText: 'ann@example.com' });
  await expect(annRow).toContainText('Unsubscribed');
  await expect(page.getByRole('row').filter({ hasText: 'bob@example.com' })).toContainText('Subscribed');
  await expectAccessible(page, 'members with one unsubscribed');

  // Nothing a user typed ever ran as script, on any page of the journey (R15).
  expect(dialogs).toEqual([]);
});
