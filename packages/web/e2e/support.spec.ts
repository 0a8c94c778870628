import { type Browser, expect, type Page, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, signIn, tabTo, withDatabase } from './support';

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
  await expect(user.getByText('No data found.')).toBeVisible();
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

  // The customer's own SMTP server sends more than the form's 1,000 a day: the operator allows it.
  await withDatabase((client) =>
    client.query(
      `insert into sending_accounts (user_id, name, provider, driver, username, host, port, encryption, mail_per_day)
       select id, 'Own relay', 'smtp', 'smtp', 'relay', 'relay.example.com', 587, 'tls', 1000 from users where email = $1`,
      [customer.email],
    ),
  );
  await row.getByRole('button', { name: 'Accounts' }).click();
  const accounts = staff.getByRole('dialog', { name: `Sending accounts: ${customer.email}` });
  await expect(accounts.getByText("1,000 a day (the user's setting)")).toBeVisible();
  await expectAccessible(staff, 'operator, a user’s sending accounts');
  await accounts.getByRole('button', { name: 'Change cap of Own relay' }).click();
  await accounts.getByLabel(/Emails a day for Own relay/).fill('25000');
  await accounts.getByLabel('Reason').fill('Their own Postfix relay');
  await expectAccessible(staff, 'operator, daily cap');
  await accounts.getByRole('button', { name: 'Set daily cap' }).click();
  await expect(accounts.getByText("25,000 a day (set by an operator; the user's: 1,000)")).toBeVisible();
  await accounts.getByRole('button', { name: 'Close' }).click();

  await staff.getByRole('tab', { name: 'Audit log' }).click();
  await expect(staff.getByTestId('data-table')).toContainText('credits.grant');
  await expectAccessible(staff, 'operator, audit log');
  await staff.getByRole('tab', { name: 'System' }).click();
  await expect(staff.getByText('Workers alive')).toBeVisible();
  await expectAccessible(staff, 'operator, system');
  await staff.context().close();
  await user.context().close();
});

test('an ordinary user does not see the operator area, and its address answers Not Found', async ({ browser }) => {
  const user = await openAs(browser, customer);
  await expect(user.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operator' })).toHaveCount(0);
  await user.goto(`${baseUrl()}/operator/users`);
  await expect(user.getByRole('heading', { name: /not found/i })).toBeVisible();
  await user.context().close();
});
