import { type Browser, expect, type Page, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, signIn, tabTo } from './support';

const stamp = Date.now();
const customer = { email: `customer-${stamp}@example.com`, password: 'secret123', name: 'Cora Customer' };
const operator = { email: `operator-${stamp}@example.com`, password: 'secret123', name: 'Otto Operator' };

test.beforeAll(() => {
  admin('create-user', customer.email, '--name', customer.name, '--password', customer.password);
  admin('create-user', operator.email, '--name', operator.name, '--password', operator.password);
  admin('grant-operator', operator.email);
});

/** A browser of its own (cookies and all) for each person, as two people at two machines. */
const openAs = async (browser: Browser, user: typeof customer) => {
  const context = await browser.newContext({ baseURL: baseUrl() });
  const page = await context.newPage();
  await signIn(page, user);
  await expect(page.getByTestId('realtime-status')).toHaveAttribute('data-state', 'open');
  return page;
};

const supportLink = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Support/ });

test('a user opens a ticket with the keyboard; the operator answers from another browser; the badge and the answer arrive live', async ({
  browser,
}) => {
  const user = await openAs(browser, customer);
  await user.goto(`${baseUrl()}/support`);
  await expect(user.getByText('You have no tickets yet.')).toBeVisible();
  await expectAccessible(user, 'support, empty');

  // Keyboard only: open the modal, type, send.
  await tabTo(user, user.getByRole('button', { name: 'Create New Ticket' }));
  await user.keyboard.press('Enter');
  const dialog = user.getByRole('dialog', { name: 'Create New Ticket' });
  await expect(dialog).toBeVisible();
  await user.keyboard.press('Enter');
  await expect(dialog.getByText('The subject must be 3 to 500 characters.')).toBeVisible();
  await expectAccessible(user, 'create ticket, with errors');
  await dialog.getByLabel('Subject').focus();
  await user.keyboard.type('Import stops at 60%');
  await user.keyboard.press('Tab');
  await user.keyboard.type('My 200k-row CSV stops every time.');
  await tabTo(user, dialog.getByRole('button', { name: 'Create Ticket' }));
  await user.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  const table = user.getByTestId('data-table');
  await expect(table).toContainText('Import stops at 60%');
  await expect(table).toContainText('Active');

  const staff = await openAs(browser, operator);
  await staff.goto(`${baseUrl()}/operator/tickets`);
  await staff.getByRole('button', { name: 'Import stops at 60%' }).click();
  const conversation = staff.getByRole('dialog');
  await expect(conversation.getByRole('log', { name: 'Messages' })).toContainText('My 200k-row CSV stops every time.');
  await expectAccessible(staff, 'operator, a ticket');
  await conversation.getByLabel('Your response').fill('Fixed in today’s release: please try again.');
  await conversation.getByRole('button', { name: 'Send' }).click();
  await expect(conversation.getByRole('log', { name: 'Messages' })).toContainText('Fixed in today’s release');

  // Live, without a reload: the badge on the Support link and the row in bold with "New".
  await expect(supportLink(user)).toContainText('1');
  await expect(table.getByRole('button', { name: 'Import stops at 60% (new answer)' })).toBeVisible();
  await expectAccessible(user, 'support, an unread answer');
  await table.getByRole('button', { name: 'Import stops at 60% (new answer)' }).click();
  const details = user.getByRole('dialog', { name: 'Import stops at 60%' });
  await expect(details.getByRole('log', { name: 'Messages' })).toContainText('Fixed in today’s release');
  await expectAccessible(user, 'ticket details');
  await expect(supportLink(user)).not.toContainText('1');

  // The operator closes it; the user's open ticket shows it closed, live.
  await conversation.getByRole('button', { name: 'Close ticket' }).click();
  await expect(details.getByText('This ticket is closed.')).toBeVisible();
  await staff.context().close();
  await user.context().close();
});

test('the operator grants credits with a reason and the user’s balance moves live; the audit log has it', async ({
  browser,
}) => {
  const user = await openAs(browser, customer);
  const before = Number((await user.getByTestId('credit-balance').textContent())?.replace(/\D/g, ''));
  const staff = await openAs(browser, operator);
  await staff.goto(`${baseUrl()}/operator/users`);
  await staff.getByRole('searchbox').fill(customer.email);
  const row = staff.getByTestId('data-table').getByRole('row', { name: new RegExp(customer.email) });
  await row.getByRole('button', { name: 'Credits' }).click();
  const dialog = staff.getByRole('dialog');
  await dialog.getByLabel('Credits').fill('500');
  await dialog.getByLabel('Reason').fill('Sorry for the outage');
  await expectAccessible(staff, 'operator, grant credits');
  await dialog.getByRole('button', { name: 'Grant credits' }).click();
  await expect(dialog).toBeHidden();

  await expect(user.getByTestId('credit-balance')).toHaveText((before + 500).toLocaleString('en-US'));

  await staff.getByRole('tab', { name: 'Audit log' }).click();
  await expect(staff.getByTestId('data-table')).toContainText('credits.grant');
  await expectAccessible(staff, 'operator, audit log');
  await staff.getByRole('tab', { name: 'System' }).click();
  await expect(staff.getByText('Workers alive')).toBeVisible();
  await expectAccessible(staff, 'operator, system');
  await staff.context().close();
  await user.context().close();
});

test('an announcement shows once, again from the navigation, and by itself a week after it was dismissed', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const staff = await openAs(browser, operator);
  await staff.goto(`${baseUrl()}/operator/announcements`);
  await staff.getByLabel('Title').fill('Drip campaigns are here');
  await staff.getByLabel('Text').fill('Build a sequence in six steps.');
  await staff.getByRole('button', { name: 'Save' }).click();
  const card = staff.getByRole('region', { name: 'Drip campaigns are here' });
  await card.getByRole('button', { name: 'Publish' }).click();
  await expect(card.getByText(/Published/)).toBeVisible();
  await expectAccessible(staff, 'operator, announcements');

  try {
    const user = await openAs(browser, customer);
    const modal = user.getByRole('dialog', { name: 'Drip campaigns are here' });
    await expect(modal).toBeVisible();
    // A static backdrop: a click beside the modal leaves it open.
    await user.mouse.click(5, 5);
    await expect(modal).toBeVisible();
    await expectAccessible(user, 'announcement');
    await tabTo(user, modal.getByRole('button', { name: 'Got it' }));
    await user.keyboard.press('Enter');
    await expect(modal).toBeHidden();

    await user.reload();
    await expect(user.getByTestId('user-name')).toBeVisible();
    await expect(modal).toBeHidden();
    await user.getByRole('button', { name: 'Announcements' }).click();
    await expect(modal).toBeVisible();
    await modal.getByRole('button', { name: 'Got it' }).click();

    // Eight days later it opens by itself again.
    await user.clock.setFixedTime(new Date(Date.now() + 8 * 24 * 3600 * 1000));
    await user.reload();
    await expect(modal).toBeVisible();
    await user.context().close();
  } finally {
    // Later journeys share this database: the announcement must not open over them.
    await staff.goto(`${baseUrl()}/operator/announcements`);
    // The operator sees the published announcement too.
    const own = staff.getByRole('dialog', { name: 'Drip campaigns are here' });
    await expect(own).toBeVisible();
    await own.getByRole('button', { name: 'Got it' }).click();
    await card.getByRole('button', { name: 'Unpublish' }).click();
    await expect(card.getByText('Draft')).toBeVisible();
    await staff.context().close();
  }
});

test('an ordinary user does not see the operator area, and its address answers Not Found', async ({ browser }) => {
  const user = await openAs(browser, customer);
  await expect(user.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operator' })).toHaveCount(0);
  await user.goto(`${baseUrl()}/operator/users`);
  await expect(user.getByRole('heading', { name: /not found/i })).toBeVisible();
  await user.context().close();
});
