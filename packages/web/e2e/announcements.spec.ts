import { type Browser, expect, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, signIn, tabTo } from './support';

/**
 * A published announcement opens over every user's screens, so this journey runs after all
 * the others, alone (the `after the others` project in playwright.config.ts).
 */
const stamp = Date.now();
const customer = { email: `reader-${stamp}@example.com`, password: 'secret123', name: 'Rita Reader' };
const operator = { email: `announcer-${stamp}@example.com`, password: 'secret123', name: 'Anna Announcer' };

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

test('an announcement shows once, again from the navigation, and by itself a week after it was dismissed', async ({
  browser,
}) => {
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
