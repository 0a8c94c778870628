import { expect, test } from '@playwright/test';
import { admin, baseUrl, connectTestInbox, expectAccessible, signIn, tabTo, userIdOf, withDatabase } from './support';

const user = { email: `drip-fix-${Date.now()}@example.com`, password: 'secret123', name: 'Dana Drip' };

test('a drip campaign from a Mailchimp export: First and Last Name make the Name, suppressed addresses start stopped, compose errors clear as they are fixed, and campaigns are ticked and deleted (issue 29 items 4, 8)', async ({
  page,
}) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  const userId = await userIdOf(user.email);
  await withDatabase((client) =>
    client.query(
      `insert into suppressions (user_id, email, type, reason, source) values ($1, 'gone@example.com', 'bounce', 'permanent failure', 'smtp')`,
      [userId],
    ),
  );
  await signIn(page, user);
  await connectTestInbox(page);

  await page.goto(`${baseUrl()}/campaigns/new`);
  await tabTo(page, page.getByLabel('Campaign Title'));
  await page.keyboard.type('Mailchimp movers');
  await tabTo(page, page.getByLabel('Sender Name'));
  await page.keyboard.type('Dana');
  await tabTo(page, page.getByRole('button', { name: 'Next', exact: true }));
  await page.keyboard.press('Enter');

  // Recipients: a Mailchimp audience export, headers as Mailchimp writes them.
  await expect(page).toHaveURL(/#\/drip\/recipients$/);
  const chooser = page.waitForEvent('filechooser');
  await page.getByLabel('CSV file').click();
  await (await chooser).setFiles({
    name: 'subscribed_members_export.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      'Email Address,First Name,Last Name,MEMBER_RATING\nann@example.com,Ann,Lee,2\ngone@example.com,Gone,Away,1\nbob@example.com,Bob,,3\n',
    ),
  });
  const mapping = page.getByRole('table', { name: 'Column mapping' });
  await expect(mapping).toContainText('ann@example.com');
  await expect(page.getByRole('combobox', { name: 'Use of First Name' })).toHaveValue('Name');
  await expect(page.getByRole('combobox', { name: 'Use of Last Name' })).toHaveValue('Name');
  await expect(page.getByTestId('recipients-preview')).toContainText('Ann Lee <ann@example.com>');
  await expect(page.getByLabel(/Verify the addresses/)).toBeVisible();
  await expectAccessible(page, 'wizard, recipients from a Mailchimp export');
  await tabTo(page, page.getByRole('button', { name: 'Use these recipients' }));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('recipient-count')).toHaveText('3 recipients in this campaign.');
  await expect(page.getByText(/1 of them bounced, complained or unsubscribed before/)).toBeVisible();
  await page.getByRole('button', { name: 'Next', exact: true }).click();

  // Compose: the error a check left goes as soon as the field is filled.
  await expect(page.getByRole('heading', { name: '#Email - 1' })).toBeVisible();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page.getByText('Subject field is required!').first()).toBeVisible();
  await expectAccessible(page, 'wizard, compose with errors');
  await page.getByLabel('Subject').fill('Hello {{name}}');
  await expect(page.getByText('Subject field is required!')).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Message Body' }).click();
  await page.keyboard.type('Hi {{name}}.');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page.getByText('#Email - 1: Hello Ann Lee')).toBeVisible();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.getByLabel(/I accept the law and terms/).check();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.getByRole('button', { name: 'Save Campaign' }).click();

  // The campaign's own page, not the wizard, whose last step names the campaign too.
  await expect(page).toHaveURL(/\/campaigns\/detail\/\d+$/);
  // The suppressed address is a recipient, stopped: it is not waiting for email 1.
  await expect(page.getByRole('heading', { name: 'Mailchimp movers' })).toBeVisible();
  await page.getByRole('tab', { name: 'Recipients' }).click();
  const recipients = page.getByRole('table', { name: 'Recipients of the campaign' });
  await expect(recipients.getByRole('row', { name: /gone@example.com/ })).toContainText('stopped: suppressed');
  await expect(recipients.getByRole('row', { name: /ann@example.com/ })).toContainText('Ann Lee');

  // An unsaved campaign besides it, deleted from its group; the saved one ticked and deleted.
  await page.goto(`${baseUrl()}/campaigns/new`);
  await page.getByLabel('Campaign Title').fill('Half done');
  await page.getByLabel('Sender Name').fill('Dana');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page).toHaveURL(/#\/drip\/recipients$/);
  await page.goto(`${baseUrl()}/campaigns`);
  await expect(page.getByText('Unsaved Campaigns (1)')).toBeVisible();
  await tabTo(page, page.getByRole('button', { name: 'Delete Half done' }));
  await page.keyboard.press('Enter');
  const confirmDraft = page.getByRole('dialog', { name: 'Delete this campaign?' });
  await expect(confirmDraft).toContainText('“Half done”');
  await expectAccessible(page, 'delete an unsaved campaign');
  await confirmDraft.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Unsaved Campaigns (1)')).toHaveCount(0);

  const list = page.getByRole('table', { name: 'Campaigns' });
  await expect(list).toContainText('Mailchimp movers');
  await list
    .getByRole('row', { name: /Mailchimp movers/ })
    .getByRole('checkbox')
    .check();
  await expect(page.getByText('1 selected')).toBeVisible();
  await expectAccessible(page, 'campaign list, one ticked');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this campaign?' });
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('You have no campaign yet.')).toBeVisible();
});
