import { expect, type Locator, type Page, test } from '@playwright/test';
import { accountsApi, campaignsApi, defaultDailyPlan, listsApi } from '@sendwell/contracts';
import { createApi } from './screens';
import { admin, baseUrl, expectAccessible, signIn, tabTo, withDatabase } from './support';

/**
 * Issue 47's drip campaign journeys: recipients from two files, one removed again, Skip while
 * there is none, a mailing list as recipients; the campaign's errors page with a bounce; the
 * members-list variant with its delete.
 */

const user = { email: `drip-recipients-${Date.now()}@example.com`, password: 'secret123', name: 'Remy Recipients' };

/** A whole-hour zone where it is about noon now, so the default window (12:00 AM to 7:00 PM) is open. */
const noonZone = () => {
  const offset = (((12 - new Date().getUTCHours()) % 24) + 24) % 24;
  const hours = offset > 12 ? offset - 24 : offset;
  return hours === 0 ? 'UTC' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
};

const csv = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });

/** Picks a file through the CSV field, reached and opened with the keyboard. */
const chooseFile = async (page: Page, file: ReturnType<typeof csv>) => {
  const chooser = page.waitForEvent('filechooser');
  await press(page, page.getByRole('button', { name: 'CSV file' }));
  await (await chooser).setFiles(file);
};

/** Tab to a control and press Enter on it, as a keyboard user does. */
const press = async (page: Page, target: Locator) => {
  await tabTo(page, target);
  await page.keyboard.press('Enter');
};

test.describe.configure({ mode: 'serial' });

let api: ReturnType<typeof createApi>;
let accountId: number;

test.beforeAll(async ({ browser }) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await withDatabase((client) =>
    client.query('update users set time_zone = $1 where email = $2', [noonZone(), user.email]),
  );
  const page = await browser.newPage();
  await signIn(page, user);
  api = createApi(() => page.request);
  const fields = { driver: 'test-inbox', username: 'ignored', host: 'ignored', port: 1, encryption: 'tls' } as const;
  await api.call(accountsApi.sendTestSmtp, { body: fields });
  accountId = (
    await api.call(accountsApi.create, { body: { ...fields, name: 'Test inbox', provider: 'smtp', password: '' } })
  ).data.id;
  await page.close();
});

test('recipients from two files, one removed again, Skip while there is none, and a mailing list', async ({ page }) => {
  test.slow();
  await signIn(page, user);
  api = createApi(() => page.request);
  // A list of the account: three subscribed members (one also in a file), one unsubscribed.
  const list = (
    await api.call(listsApi.create, { body: { accountId, alias: 'readers', name: 'Readers', description: '' } })
  ).data;
  for (const email of ['cat@example.com', 'dan@example.com', 'eve@example.com', 'left@example.com']) {
    await api.call(listsApi.addMember, { body: { listId: list.id, email } });
  }
  await api.call(listsApi.unsubscribeMember, { params: { listId: list.id }, body: { email: 'left@example.com' } });

  // The wizard's main path with the keyboard alone (a file picked in the browser's own dialog).
  await page.goto(`${baseUrl()}/campaigns/new`);
  await tabTo(page, page.getByLabel('Campaign Title'));
  await page.keyboard.type('Many sources');
  await tabTo(page, page.getByLabel('Sender Name'));
  await page.keyboard.type('Remy');
  await press(page, page.getByRole('button', { name: 'Next', exact: true }));

  // The first file's state: nothing yet, so Skip is offered; it moves on to Compose with nobody.
  await expect(page).toHaveURL(/#\/drip\/recipients$/);
  await expect(page.getByTestId('recipient-count')).toHaveText('No recipients yet.');
  await expectAccessible(page, 'wizard, recipients, the first file');
  await press(page, page.getByRole('button', { name: 'Skip' }));
  await expect(page).toHaveURL(/#\/drip\/compose$/);
  await expect(page.getByRole('heading', { name: '#Email - 1' })).toBeVisible();
  await page.getByRole('tab', { name: '2. Recipients' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/drip\/recipients$/);

  // The first file.
  await chooseFile(page, csv('leads.csv', 'email,name\nann@example.com,Ann\nbob@example.com,Bob\n'));
  // A column headed email is the email, locked as in the list import.
  await expect(page.getByRole('img', { name: 'Locked: the header says email' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Use of email' })).toBeDisabled();
  await press(page, page.getByRole('button', { name: 'Use these recipients' }));
  await expect(page.getByTestId('recipient-count')).toHaveText('2 recipients in this campaign.');
  const files = page.getByRole('table', { name: 'Recipient files' });
  await expect(files).toContainText('leads.csv');
  // The list of files' state: no Skip now, Import new for the next file.
  await expect(page.getByRole('button', { name: 'Skip' })).toHaveCount(0);
  await expectAccessible(page, 'wizard, recipients, the list of files');

  // A second file adds to the first; Ann in both is one recipient, counted and shown as a duplicate.
  await press(page, page.getByRole('button', { name: 'Import new' }));
  await chooseFile(
    page,
    csv('more.csv', 'Email,Name,City\nann@example.com,Ann Lee,Oslo\ncat@example.com,Cat,Bergen\n'),
  );
  await expect(page.getByRole('table', { name: 'Column mapping' })).toContainText('cat@example.com');
  await expectAccessible(page, 'wizard, recipients, import new');
  await press(page, page.getByRole('button', { name: 'Use these recipients' }));
  await expect(page.getByTestId('recipient-count')).toHaveText('3 recipients in this campaign.');
  const second = files.getByRole('row', { name: /more\.csv/ });
  // Rows 2, added 1 (Cat), duplicates 1 (Ann, given by leads.csv first), left out 0.
  await expect(second.getByRole('cell')).toHaveText([/more\.csv/, '2', '1', '1', '0', '']);
  await expect(page.getByTestId('recipient-duplicates')).toHaveText(
    '1 address was given more than once: each is one recipient.',
  );

  // The first file removed, with the keyboard: Ann stays (the second file has her), Bob goes.
  await press(page, page.getByRole('button', { name: 'Remove leads.csv' }));
  const confirm = page.getByRole('dialog', { name: 'Remove these recipients?' });
  await expect(confirm).toContainText('“leads.csv” goes');
  await expectAccessible(page, 'wizard, recipients, remove a file');
  // The dialog's focus starts on Remove.
  await expect(confirm.getByRole('button', { name: 'Remove' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('recipient-count')).toHaveText('2 recipients in this campaign.');
  await expect(files).not.toContainText('leads.csv');
  await expect(second.getByRole('cell')).toHaveText([/more\.csv/, '2', '2', '0', '0', '']);
  await expect(page.getByTestId('recipient-duplicates')).toHaveCount(0);

  // A mailing list as recipients: its subscribed members, Cat once; the unsubscribed one left out.
  await press(page, page.getByRole('button', { name: 'Import new' }));
  // The tabs move with the arrow keys, as WAI-ARIA's tabs do.
  await tabTo(page, page.getByRole('tab', { name: 'File Upload' }));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'From Mailing Lists' })).toHaveAttribute('aria-selected', 'true');
  await tabTo(page, page.getByRole('combobox', { name: 'Mailing lists' }));
  await page.keyboard.type('Read');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('option', { name: /Readers/ })).toHaveCount(0);
  // Its members never verified, said as Send Email says it (the unsubscribed one not counted).
  await expect(page.getByTestId('lists-unverified')).toContainText('3 members were never verified');
  await expectAccessible(page, 'wizard, recipients from a mailing list');
  await press(page, page.getByRole('button', { name: 'Add these lists' }));
  await expect(page.getByTestId('recipient-count')).toHaveText('4 recipients in this campaign.');
  const listRow = files.getByRole('row', { name: /Readers/ });
  await expect(listRow).toContainText('Mailing list');
  await expect(listRow).toContainText('3 not verified');
  // Rows 4 (members), added 2 (Dan, Eve), duplicates 1 (Cat, from more.csv), left out 1 (unsubscribed).
  await expect(listRow.getByRole('cell')).toHaveText([/Readers/, '4', '2', '1', '1', '']);
  const recipients = await withDatabase(
    async (client) =>
      (
        await client.query(
          `select r.email, r.name from campaign_recipients r join campaigns c on c.id = r.campaign_id
            where c.title = 'Many sources' order by r.email`,
        )
      ).rows,
  );
  expect(recipients).toEqual([
    { email: 'ann@example.com', name: 'Ann Lee' },
    { email: 'cat@example.com', name: 'Cat' },
    { email: 'dan@example.com', name: '' },
    { email: 'eve@example.com', name: '' },
  ]);
  await press(page, page.getByRole('button', { name: 'Next', exact: true }));
  await expect(page).toHaveURL(/#\/drip\/compose$/);
});

test('the errors page names a bounced email and why; the members list deletes a member after a confirmation', async ({
  page,
}) => {
  test.slow();
  await signIn(page, user);
  api = createApi(() => page.request);
  const build = async (
    title: string,
    recipients: { email: string; name: string }[],
    options: { scheduled: boolean; scheduleTime: string | null },
  ) => {
    const start = await api.call(campaignsApi.saveStart, { body: { accountId, title, senderName: 'Remy' } });
    const temporary = start.temporaryKey;
    await api.call(campaignsApi.saveRecipients, { body: { temporary, recipients } });
    await api.call(campaignsApi.saveSequence, {
      body: { temporary, drips: [{ subject: 'Hello {{name}}', body: '<p>Hello.</p>' }], dailyPlan: defaultDailyPlan() },
    });
    await api.call(campaignsApi.savePreview, { body: { temporary } });
    await api.call(campaignsApi.saveOptions, { body: { temporary, options: { acceptLaw: true, ...options } } });
    return (await api.call(campaignsApi.finish, { body: { temporary } })).id;
  };
  // The test inbox refuses any address at bounce.test, as a server refuses an unknown mailbox.
  const bouncing = await build('Bouncing', [{ email: 'nobody@bounce.test', name: 'Nobody' }], {
    scheduled: false,
    scheduleTime: null,
  });
  // A campaign that waits for its day, so nothing of it goes while this journey runs.
  const waiting = await build(
    'Members to tidy',
    ['ann', 'bob', 'cat', 'dan', 'eve'].map((name) => ({ email: `${name}@example.com`, name })),
    { scheduled: true, scheduleTime: new Date(Date.now() + 5 * 86_400_000).toISOString() },
  );

  // The errors page: reached from the campaign's tabs with the keyboard (the arrow keys move
  // between tabs; Errors is the last), the bounced email with the server's words.
  await page.goto(`${baseUrl()}/campaigns/detail/${bouncing}`);
  await tabTo(page, page.getByRole('tab', { name: 'Overview' }));
  await page.keyboard.press('ArrowLeft');
  await expect(page).toHaveURL(new RegExp(`/campaigns/detail/${bouncing}/errors$`));
  await expect(page.getByRole('tab', { name: 'Errors' })).toHaveAttribute('aria-selected', 'true');
  const failures = page.getByRole('table', { name: 'Failed emails of the campaign' });
  await expect(async () => {
    await page.reload();
    await expect(failures).toContainText('nobody@bounce.test', { timeout: 5_000 });
  }).toPass({ timeout: 150_000, intervals: [5_000] });
  await expect(failures).toContainText('#1: Hello {{name}}');
  await expect(failures).toContainText(/550/);
  await expect(page.getByTestId('stopped-recipients')).toHaveText('Recipients stopped:');
  await expect(page.getByText('bounced: 1')).toBeVisible();
  await expectAccessible(page, 'campaign errors');

  // The spec's linked paths open today's pages.
  const linked: [string, string][] = [
    [`/campaigns/detail/${bouncing}/campaign-view/overview`, 'Overview'],
    [`/campaigns/detail/${bouncing}/campaign-view/members`, 'Recipients'],
    [`/campaigns/detail/${bouncing}/campaign-view/settings`, 'Settings'],
    [`/campaigns/detail/${bouncing}/mail-chain`, 'E-Mails'],
    [`/drip-campaign/campaign/${bouncing}/detail`, 'Overview'],
  ];
  for (const [path, tab] of linked) {
    await page.goto(`${baseUrl()}${path}`);
    await expect(page.getByRole('heading', { name: 'Bouncing' })).toBeVisible();
    await expect(page.getByRole('tab', { name: tab }), path).toHaveAttribute('aria-selected', 'true');
  }

  // The members-list variant, from the Recipients tab: two a page (the spec's default), delete with a confirmation.
  await page.goto(`${baseUrl()}/campaigns/detail/${waiting}/members`);
  await press(page, page.getByRole('link', { name: 'Members list' }));
  await expect(page).toHaveURL(new RegExp(`/drip-campaign/campaign/${waiting}/members$`));
  await page.evaluate(() => window.localStorage.removeItem('per_page'));
  await page.reload();
  const members = page.getByRole('table', { name: 'Members of the campaign' });
  await expect(members).toContainText('ann@example.com');
  await expect(members.getByRole('row')).toHaveCount(3);
  await expect(page.getByText('Displaying 2 of 5 entries.')).toBeVisible();
  await expectAccessible(page, 'campaign members list');
  await tabTo(page, page.getByRole('button', { name: 'Delete ann@example.com' }));
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Delete this member?' });
  await expect(dialog).toContainText('ann <ann@example.com>');
  await expectAccessible(page, 'campaign members list, delete');
  // The dialog's focus starts on Delete; Enter confirms.
  await expect(dialog.getByRole('button', { name: 'Delete' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Your member successfully deleted on list!')).toBeVisible();
  await expect(members).not.toContainText('ann@example.com');
  await expect(page.getByText('Displaying 2 of 4 entries.')).toBeVisible();
  const left = await withDatabase(
    async (client) =>
      (
        await client.query(
          `select count(*)::int as count from campaign_recipients r join campaigns c on c.id = r.campaign_id
            where c.title = 'Members to tidy'`,
        )
      ).rows[0].count,
  );
  expect(left).toBe(4);
});
