import { expect, test } from '@playwright/test';
import {
  accountOf,
  admin,
  baseUrl,
  connectTestInbox,
  expectAccessible,
  seedList,
  seedScheduledSend,
  signIn,
  tabTo,
  withDatabase,
  writeHtmlMessage,
} from './support';

const user = { email: `history-${Date.now()}@example.com`, password: 'secret123', name: 'Hana History' };

/** The user's id and their test-inbox account, and a list of two members on it. */
/** A list of two members on the user's test-inbox account. */
const seedReaders = async () => {
  const { userId, accountId } = await accountOf(user.email);
  await seedList({
    userId,
    accountId,
    alias: 'readers',
    name: 'Readers',
    members: ['ann@example.com', 'bob@example.com'],
  });
};

test('a send shows on the dashboard and in History with its counts and events, exports as CSV, and starts a new send', async ({
  page,
}) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);
  await connectTestInbox(page);
  await seedReaders();

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Hana');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Readers/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('History journey =1+1 for {{name::friend}}');
  await writeHtmlMessage(page, '<p>Hello {{name}}</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, send it' }).click();
  await expect(page.getByTestId('send-progress')).toContainText('finished', { timeout: 30_000 });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History' }).click();
  const table = page.getByTestId('data-table');
  const row = table.getByRole('row', { name: /History journey/ });
  await expect(row).toContainText('Sent');
  await expect(row).toContainText('Readers');
  // The subject as its readers saw it: the merge field's fallback, not its braces (issue 45 §4).
  await expect(row).toContainText('History journey =1+1 for friend');
  await expect(row).not.toContainText('{{');
  await expectAccessible(page, 'history');
  // Keyboard: expand the row to its statistics.
  await tabTo(page, row.getByRole('button', { name: 'Expand row' }));
  await page.keyboard.press('Enter');
  const stats = page.getByLabel('Statistics');
  await expect(stats).toContainText('Sent');
  await expect(stats).toContainText('2');
  await expectAccessible(page, 'history, a row expanded');

  await row.getByRole('link', { name: 'Details' }).click();
  await expect(page.getByRole('heading', { name: /History: History journey/ })).toBeVisible();
  const events = page.getByTestId('data-table');
  await expect(events).toContainText('ann@example.com');
  await expect(events).toContainText('bob@example.com');
  await page.getByLabel('Event type').selectOption('sent');
  await expect(events.getByRole('row')).toHaveCount(3);
  await expectAccessible(page, 'history details');
  const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
  const csv = await (await page.request.get(`${baseUrl()}${href}`)).text();
  expect(csv).toContain('Recipient,Event,Date,Detail');
  expect(csv).toContain('ann@example.com,sent');

  // The dashboard counts the send from the maintained counters, and lists its events.
  await page.goto(`${baseUrl()}/`);
  await expect(page.getByRole('img', { name: /^Sent: 2 / })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Last 7 days' })).toContainText('2');
  await expect(page.getByTestId('data-table')).toContainText('bob@example.com');
  // Messages, not people: one per recipient of each send; the events say Sent, as History does (issue 45 §4).
  await expect(page.getByTestId('dashboard-figures')).toContainText('2 messages (one per recipient of each send)');
  await expect(page.getByTestId('dashboard-figures')).not.toContainText('each counted once');
  await expect(page.getByTestId('data-table')).toContainText('Sent');
  await expect(page.getByTestId('data-table')).not.toContainText(/accepted/i);
  await expect(
    page.getByRole('table', { name: 'Last 7 days' }).getByRole('columnheader', { name: 'Sent' }),
  ).toBeVisible();
  await expectAccessible(page, 'dashboard');

  // Send again shows Send Email's pre-send checklist first; nothing goes until it is confirmed.
  await page.goto(`${baseUrl()}/history`);
  await page
    .getByTestId('data-table')
    .getByRole('button', { name: 'Send again: History journey =1+1 for friend' })
    .click();
  const again = page.getByRole('dialog', { name: 'Send this email again?' });
  await expect(again.getByTestId('pre-send-checklist')).toBeVisible();
  await expect(again.getByTestId('pre-send-lists')).toBeVisible();
  await expect(again.getByTestId('pre-send-message')).toContainText('of 10');
  await expectAccessible(page, 'send again with its checklist');
  await again.getByRole('button', { name: 'Cancel' }).click();
  await expect(again).toBeHidden();
  await expect(page.getByTestId('data-table').getByRole('row', { name: /History journey/ })).toHaveCount(1);

  // Duplicate (a sent email is not edited) starts a new send from this one.
  await page
    .getByTestId('data-table')
    .getByRole('link', { name: /Duplicate as a new email: History journey/ })
    .click();
  await expect(page.getByLabel('Subject')).toHaveValue('History journey =1+1 for {{name::friend}}');
  // A message written in HTML (no design beside it) opens in HTML mode, as written.
  await expect(page.getByLabel('HTML message')).toHaveText('<p>Hello {{name}}</p>');
});

test('a scheduled email is edited, cancelled, restored and deleted, as its status allows', async ({ page }) => {
  await signIn(page, user);
  const { userId, accountId, listId } = await withDatabase(async (client) => {
    const { rows } = await client.query<{ user_id: string; account_id: string; list_id: string }>(
      `select u.id as user_id, a.id as account_id, l.id as list_id from users u
         join sending_accounts a on a.user_id = u.id join mailing_lists l on l.account_id = a.id
        where u.email = $1 limit 1`,
      [user.email],
    );
    return { userId: rows[0]!.user_id, accountId: rows[0]!.account_id, listId: rows[0]!.list_id };
  });
  // On the hour, five days ahead.
  const deliverAt = new Date();
  deliverAt.setUTCMinutes(0, 0, 0);
  deliverAt.setUTCDate(deliverAt.getUTCDate() + 5);
  await seedScheduledSend({
    userId,
    accountId,
    listId,
    listName: 'Readers',
    fromName: 'Hana',
    fromAddress: 'hana@example.com',
    subject: 'Black Friday',
    html: '<p>Deals</p>',
    deliverAt,
  });

  await page.goto(`${baseUrl()}/scheduled-mails`);
  const row = page.getByTestId('data-table').getByRole('row', { name: /Black Friday/ });
  await expect(row).toContainText('Pending');
  await expectAccessible(page, 'scheduled emails');

  // Keyboard: Edit opens the Send Email form at /scheduled-mails/edit/{id} (spec), prefilled, its
  // delivery time the list's; change the subject, save, back on the list.
  const listedTime = (await row.textContent())?.match(/(\d\d)\/(\d\d)\/(\d{4}) (\d{1,2}):(\d\d) (AM|PM)/);
  expect(listedTime).not.toBeNull();
  const [, month, day, year, hour, minute, meridiem] = listedTime!;
  await tabTo(page, row.getByRole('link', { name: 'Edit Black Friday' }));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/scheduled-mails\/edit\/\d+$/);
  await expect(page.getByRole('heading', { name: 'Edit Scheduled Email' })).toBeVisible();
  await expect(page.getByLabel('Subject')).toHaveValue('Black Friday');
  await expect(page.getByRole('button', { name: /^Delivery date/ })).toContainText(`${year}-${month}-${day}`);
  await expect(page.getByRole('combobox', { name: /^Delivery time/ })).toHaveValue(
    `${hour!.padStart(2, '0')}:${minute} ${meridiem}`,
  );
  // The list it goes to is chosen in the form: its subscribers are counted under the field.
  await expect(page.getByText('2 subscribed in total', { exact: false })).toBeVisible();
  await expectAccessible(page, 'edit scheduled email');
  await page.getByLabel('Subject').fill('Black Friday: 30% off');
  await tabTo(page, page.getByRole('button', { name: 'Save changes' }));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/scheduled-mails$/);
  const edited = page.getByTestId('data-table').getByRole('row', { name: /30% off/ });
  await expect(edited).toBeVisible();
  await expect(edited).toContainText(`${month}/${day}/${year} ${hour}:${minute} ${meridiem}`);

  // Each action answers 'Success!' with OK (spec §8).
  const success = page.getByRole('dialog', { name: 'Success!' });
  await edited.getByRole('button', { name: /^Cancel / }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel email' }).click();
  await expect(success).toContainText('The scheduled email was cancelled.');
  await expectAccessible(page, 'scheduled emails, Success! dialog');
  await success.getByRole('button', { name: 'OK' }).click();
  await expect(edited).toContainText('Cancelled');
  await expect(edited.getByRole('link', { name: /^Edit / })).toHaveCount(0);

  // The spec's linked path of the same action opens as a page: the email, a confirm, then the action.
  const id = await withDatabase(
    async (client) =>
      (
        await client.query<{ id: string }>(
          `select id from sends where user_id = $1 and subject = 'Black Friday: 30% off'`,
          [userId],
        )
      ).rows[0]!.id,
  );
  await page.goto(`${baseUrl()}/scheduled-mails/cancel/${id}/remove-cancel`);
  await expect(page.getByRole('heading', { name: 'Remove Cancel' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'The scheduled email' })).toContainText('Cancelled');
  await expectAccessible(page, 'remove cancel page');
  await tabTo(page, page.getByRole('button', { name: 'Remove cancel' }));
  await page.keyboard.press('Enter');
  await expect(success).toContainText('The email is scheduled again.');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/scheduled-mails$/);
  await expect(edited).toContainText('Pending');

  await edited.getByRole('button', { name: /^Delete / }).click();
  await expect(page.getByRole('dialog', { name: 'Delete this email?' })).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Delete this email?' })).toHaveCSS('opacity', '1');
  await expectAccessible(page, 'delete confirmation');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await success.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId('data-table')).not.toContainText('30% off');
});
