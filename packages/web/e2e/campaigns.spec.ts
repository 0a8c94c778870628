import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { admin, baseUrl, connectTestInbox, expectAccessible, signIn, tabTo, withDatabase } from './support';

const user = { email: `drip-${Date.now()}@example.com`, password: 'secret123', name: 'Dora Drip' };

/** A whole-hour zone where it is about noon now, so the default window (12:00 AM to 7:00 PM) is open. */
const noonZone = () => {
  const offset = (((12 - new Date().getUTCHours()) % 24) + 24) % 24;
  const hours = offset > 12 ? offset - 24 : offset;
  // Etc/GMT-X is UTC+X (the POSIX sign).
  return hours === 0 ? 'UTC' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
};

test('builds a 3-step campaign from a CSV, previews it, starts it, and the first email arrives; a recipient is paused and the running sequence edited', async ({
  page,
}) => {
  test.slow();
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await withDatabase((client) =>
    client.query('update users set time_zone = $1 where email = $2', [noonZone(), user.email]),
  );
  await signIn(page, user);
  await connectTestInbox(page);

  await page.goto(`${baseUrl()}/campaigns`);
  await expect(page.getByText('You have no campaign yet.')).toBeVisible();
  await expectAccessible(page, 'campaign list, empty');
  await page.getByRole('link', { name: 'New Campaign' }).first().click();

  // Start, with the keyboard alone.
  await expect(page.getByRole('tab', { name: '1. Start' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab', { name: '2. Recipients' })).toBeDisabled();
  await tabTo(page, page.getByLabel('Campaign Title'));
  await page.keyboard.type('Welcome series');
  await tabTo(page, page.getByLabel('Sender Name'));
  await page.keyboard.type('Dora at Acme');
  await expectAccessible(page, 'wizard, start');
  await tabTo(page, page.getByRole('button', { name: 'Next', exact: true }));
  await page.keyboard.press('Enter');

  // Recipients from a CSV with a custom column.
  await expect(page).toHaveURL(/\/campaigns\/continue\/\d+#\/drip\/recipients$/);
  const chooser = page.waitForEvent('filechooser');
  await page.getByLabel('CSV file').click();
  await (await chooser).setFiles({
    name: 'leads.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      'email,name,company\nann@example.com,Ann,Initech\nbob@example.com,Bob,Globex\ncat@example.com,Cat,\n',
    ),
  });
  await expect(page.getByRole('table', { name: 'Column mapping' })).toContainText('ann@example.com');
  await expectAccessible(page, 'wizard, recipients mapped');
  await page.getByRole('button', { name: 'Use these recipients' }).click();
  await expect(page.getByTestId('recipient-count')).toHaveText('3 recipients in this campaign.');
  await page.getByRole('button', { name: 'Next', exact: true }).click();

  // Compose: three emails, the first with a merge field.
  await expect(page.getByRole('heading', { name: '#Email - 1' })).toBeVisible();
  await page.getByLabel('Subject').fill('Hello {{name}}');
  await page.getByRole('textbox', { name: 'Message Body' }).click();
  await page.keyboard.type('Hi {{name}}, welcome aboard from {{company::your team}}.');
  await page.getByRole('button', { name: 'ADD STEP' }).click();
  await page.getByRole('button', { name: 'ADD STEP' }).click();
  await expect(page.getByRole('heading', { name: '#Email - 3' })).toBeVisible();
  await expect(page.getByLabel('Subject').nth(1)).toHaveValue('Re: Hello {{name}}');
  await page.getByRole('textbox', { name: 'Message Body' }).nth(1).click();
  await page.keyboard.type('Just checking in.');
  await page.getByRole('textbox', { name: 'Message Body' }).nth(2).click();
  await page.keyboard.type('Last note from us.');
  // An image in the first email (issue 46): uploaded through the spec's drip upload's library.
  const firstEmail = page.getByRole('region', { name: '#Email - 1' });
  await firstEmail.getByRole('button', { name: 'Add a block' }).click();
  await page.getByRole('menuitem', { name: 'Image', exact: true }).click();
  await page.getByRole('button', { name: 'Upload or choose an image' }).click();
  const picker = page.getByRole('dialog', { name: 'Choose an image' });
  const imageChooser = page.waitForEvent('filechooser');
  await picker.getByRole('button', { name: 'Upload an image' }).click();
  await (await imageChooser).setFiles({
    name: 'welcome.png',
    mimeType: 'image/png',
    buffer: await sharp({ create: { width: 200, height: 100, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer(),
  });
  await expect(picker).toBeHidden();
  await page.getByLabel('Alternative text').fill('Welcome banner');
  const imageUrl = await page.getByLabel('Image address (URL)').inputValue();
  expect(imageUrl).toMatch(/\/media\/[0-9a-f]{64}$/);
  await expectAccessible(page, 'wizard, compose');
  await page.getByRole('button', { name: 'Next', exact: true }).click();

  // Preview: merge fields filled per recipient, 1 / 3 and on.
  await expect(page.getByTestId('preview-index')).toHaveText('1 / 3');
  await expect(page.getByText('#Email - 1: Hello Ann')).toBeVisible();
  await expect(page.getByText('— wait 5 days —').first()).toBeVisible();
  await page.getByRole('button', { name: 'Next recipient' }).click();
  await expect(page.getByTestId('preview-index')).toHaveText('2 / 3');
  await expect(page.getByText('#Email - 1: Hello Bob')).toBeVisible();
  await expectAccessible(page, 'wizard, preview');
  // The keyboard again: focus Next and press Enter (the step is saved, then Options opens).
  await page.getByRole('button', { name: 'Next', exact: true }).focus();
  await page.keyboard.press('Enter');

  // Options: the law and terms are required.
  await expect(page.getByRole('heading', { name: 'Choose how your campaign will be sent' })).toBeVisible();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page.getByText('Please accept the law and terms to send this campaign.')).toBeVisible();
  await page.getByLabel(/I accept the law and terms/).check();
  // Scheduling offers the first mail's time (the scheduler's own test sends at a scheduled time);
  // this campaign goes now, so the first email can be watched arriving.
  await page.getByLabel('Schedule the first campaign mail').check();
  // On the user's clock (issue 29): a day and a time in 5-minute steps, in their zone.
  await expect(page.getByRole('button', { name: /^First mail on/ })).toBeVisible();
  await expect(page.getByText(/Times are in your time zone/)).toBeVisible();
  await expectAccessible(page, 'wizard, options with the schedule');
  await page.getByLabel('Schedule the first campaign mail').uncheck();
  await expect(page.getByRole('button', { name: /^First mail on/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page.getByText('3 recipients, 3 emails')).toBeVisible();
  // Before it starts (issue 31 §1): the pre-send checklist of its domain, its emails and its recipients.
  const checklist = page.getByTestId('pre-send-checklist');
  await expect(checklist).toBeVisible({ timeout: 20_000 });
  await checklist.getByRole('button', { name: /Message/ }).click();
  await expect(checklist.getByText('Email #1: Content score')).toBeVisible();
  await expectAccessible(page, 'wizard, finish with the pre-send checklist');
  await page.getByRole('button', { name: 'Save Campaign' }).click();

  // The campaign's own page, not the wizard, whose last step names the campaign too.
  await expect(page).toHaveURL(/\/campaigns\/detail\/\d+$/);
  // The campaign runs: the first email of the first recipient reaches the test inbox.
  await expect(page.getByRole('heading', { name: 'Welcome series' })).toBeVisible();
  await expect(page.getByTestId('campaign-totals')).toContainText('Recipients3');
  await expectAccessible(page, 'campaign overview');
  await page.goto(`${baseUrl()}/test-inbox`);
  // The row's subject (a toast may say "New message: Hello Ann" too, when it arrives while the page is open).
  await expect(page.getByRole('button', { name: 'Hello Ann' })).toBeVisible({ timeout: 60_000 });
  // The step's image arrived with it, loading from Sendwell's /media/ URL.
  const inbox = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages?per_page=50`)).json();
  const first = inbox.data.find((item: { subject: string }) => item.subject === 'Hello Ann');
  const firstHtml = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages/${first.id}/html`)).text();
  expect(firstHtml).toContain(`src="${imageUrl}"`);
  expect(firstHtml).toContain('alt="Welcome banner"');
  expect((await page.request.get(imageUrl)).status()).toBe(200);

  // Pause Bob, who has not had an email yet (one every 2 minutes at most).
  await page.goBack();
  await page.getByRole('tab', { name: 'Recipients' }).click();
  const table = page.getByRole('table', { name: 'Recipients of the campaign' });
  await expect(table).toContainText('bob@example.com');
  await expect(table).toContainText('Globex');
  await page.getByRole('switch', { name: 'Pause bob@example.com' }).click();
  await expect(page.getByRole('switch', { name: 'Resume bob@example.com' })).not.toBeChecked();
  await expectAccessible(page, 'campaign recipients');
  await page.getByRole('tab', { name: 'E-Mails' }).click();
  const emails = page.getByRole('table', { name: 'Emails of the campaign' });
  await expect(emails).toContainText('Email # 3');
  await page.getByRole('button', { name: 'Edit Sequence' }).click();
  await expect(page.getByRole('dialog', { name: 'Edit the sequence?' })).toContainText(
    'When you edit your emails, it will not affect the processes in the queue.',
  );
  await expectAccessible(page, 'edit sequence warning');
  // The sequence of a running campaign, edited: a body typed into, a step added and deleted,
  // Sunday's window dropped; what is saved is what was typed.
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: '#Email - 3' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message Body' }).nth(1).click();
  await page.keyboard.press('End');
  await page.keyboard.type(' Edited later on.');
  await page.getByRole('button', { name: 'ADD STEP' }).click();
  await expect(page.getByLabel('Subject').nth(3)).toHaveValue('Re: Hello {{name}}');
  await page.getByRole('button', { name: 'Delete email 4' }).click();
  await expect(page.getByRole('heading', { name: '#Email - 4' })).toHaveCount(0);
  const sunday = page.getByRole('group', { name: 'Sending days and times' }).getByRole('checkbox', { name: 'Sunday' });
  await expect(sunday).toBeChecked();
  await sunday.click();
  await expectAccessible(page, 'sequence editor of a running campaign');
  await page.getByRole('button', { name: 'Save Sequence' }).click();
  await expect(page.getByText('Success!')).toBeVisible();
  await expect(emails).toContainText('Email # 3');
  const saved = await withDatabase(async (client) => ({
    bodies: (
      await client.query(
        `select s.body from campaign_steps s join campaigns c on c.id = s.campaign_id
          where c.title = 'Welcome series' and s.deleted_at is null order by s.position`,
      )
    ).rows.map((row) => row.body),
    sunday: (await client.query(`select daily_plan->0 as day from campaigns where title = 'Welcome series'`)).rows[0]
      .day,
  }));
  // Each body is the editor's HTML (issue 46), holding what was typed, as typed.
  expect(saved.bodies).toHaveLength(3);
  expect(saved.bodies[0]).toContain(
    '<p style="margin:0 0 12px">Hi {{name}}, welcome aboard from {{company::your team}}.</p>',
  );
  expect(saved.bodies[1]).toContain('<p style="margin:0 0 12px">Just checking in. Edited later on.</p>');
  expect(saved.bodies[2]).toContain('<p style="margin:0 0 12px">Last note from us.</p>');
  expect(saved.sunday).toMatchObject({ key: 'Sun', checked: false });

  await page.goto(`${baseUrl()}/campaigns`);
  const list = page.getByRole('table', { name: 'Campaigns' });
  await expect(list).toContainText('Welcome series');
  await expect(list).toContainText('Running');
  await expectAccessible(page, 'campaign list');
});
