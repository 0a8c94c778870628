import { expect, type Page, test } from '@playwright/test';
import {
  admin,
  baseUrl,
  expectAccessible,
  seedList,
  seedScheduledSend,
  seedTestInboxAccount,
  signIn,
  tabTo,
  waitForMail,
  withDatabase,
} from './support';

/** `MM/DD/YYYY h:mm A` of an instant on a zone's clock, as every table shows times (spec §9). */
const shownIn = (instant: Date, timeZone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: 'numeric',
      minute: '2-digit',
      hour12: true,
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.month}/${parts.day}/${parts.year} ${parts.hour}:${parts.minute} ${parts.dayPeriod}`;
};

const newUser = (prefix: string, name: string) => ({
  email: `${prefix}-${Date.now()}@example.com`,
  password: 'secret123',
  name,
});

/** Opens the user menu and its Profile item with the keyboard, as the header offers them. */
const openProfileByKeyboard = async (page: Page, name: string) => {
  await page.goto(`${baseUrl()}/`);
  await tabTo(page, page.getByRole('button', { name }));
  await page.keyboard.press('Enter');
  const profile = page.getByRole('menuitem', { name: 'Profile' });
  await expect(profile).toBeVisible();
  for (let presses = 0; presses < 5; presses += 1) {
    if (await profile.evaluate((element) => element === document.activeElement)) break;
    await page.keyboard.press('ArrowDown');
  }
  await expect(profile).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/settings\/profile$/);
  await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
};

test('a newcomer connects the test inbox as it comes, by keyboard: Test SMTP, then Save (issue 29 item 1)', async ({
  page,
}) => {
  const user = newUser('first-step', 'Nia Newcomer');
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);
  await page.goto(`${baseUrl()}/settings/accounts`);
  await tabTo(page, page.getByTestId('connect-test-inbox'));
  await page.keyboard.press('Enter');
  const form = page.getByTestId('account-form');
  // Filled in: the name too, with no example text posing as a value anywhere in the form.
  await expect(form.getByLabel('Account Name')).toHaveValue('Test inbox');
  for (const input of await form.locator('input:not([type=hidden])').all()) {
    expect(await input.getAttribute('placeholder')).toBeNull();
  }
  await expectAccessible(page, 'test inbox form, as it opens');
  await tabTo(page, form.getByTestId('smtp-test'));
  await page.keyboard.press('Enter');
  await expect(form.getByText(`A test message was sent to ${user.email}`)).toBeVisible();
  await tabTo(page, form.getByTestId('account-save'));
  await page.keyboard.press('Enter');
  const item = page.locator('[data-testid^="account-item-"]');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('Test inbox');
  await expect(page.getByText('The Account Name field is required')).toHaveCount(0);
});

test('Profile: name, time zone (every screen follows it), email by the mailed link with Cancel and the undo link, password signing out the other device, sign out everywhere (issue 29 items 2, 3; issue 43 item 2)', async ({
  page,
  browser,
}) => {
  const user = newUser('profile', 'Pat Profile');
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  admin('grant-credits', user.email, '50');
  await signIn(page, user);
  const otherDevice = await browser.newContext();
  const otherPage = await otherDevice.newPage();
  await signIn(otherPage, user);

  await openProfileByKeyboard(page, user.name);
  await expect(page.getByRole('combobox', { name: 'Time zone' })).toHaveValue(/^America\/New York/);
  await expectAccessible(page, 'profile');

  // Name, by keyboard.
  await tabTo(page, page.getByLabel('Full Name'));
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Pat Renamed');
  await tabTo(page, page.getByRole('button', { name: 'Save name' }));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('user-name')).toHaveText('Pat Renamed');

  // Time zone: Tokyo, typed and picked as a keyboard user does.
  await tabTo(page, page.getByRole('combobox', { name: 'Time zone' }));
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Tokyo');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('combobox', { name: 'Time zone' })).toHaveValue(/^Asia\/Tokyo/);
  await tabTo(page, page.getByRole('button', { name: 'Save time zone' }));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Your profile has been saved.').first()).toBeVisible();

  // The same instants on every screen, on Tokyo's clock: a scheduled email in its list and its
  // edit page, the credit log's trial credits.
  const deliverAt = new Date('2030-11-12T15:00:00Z');
  const trial = await withDatabase(async (client) => {
    const { rows } = await client.query<{ user_id: string; created_at: Date }>(
      `select u.id as user_id, c.created_at from users u join credit_entries c on c.user_id = u.id
        where u.email = $1 order by c.id desc limit 1`,
      [user.email],
    );
    return { userId: rows[0]!.user_id, createdAt: rows[0]!.created_at };
  });
  const accountId = await seedTestInboxAccount(trial.userId, 'pat@example.com');
  const listId = await seedList({ userId: trial.userId, accountId, alias: 'friends', name: 'Friends', members: [] });
  await seedScheduledSend({
    userId: trial.userId,
    accountId,
    listId,
    listName: 'Friends',
    fromName: 'Pat',
    fromAddress: 'pat@example.com',
    subject: 'Tokyo morning',
    html: '<p>Hi</p>',
    deliverAt,
  });
  const trialAt = trial.createdAt;
  await page.goto(`${baseUrl()}/scheduled-mails`);
  const row = page.getByTestId('data-table').getByRole('row', { name: /Tokyo morning/ });
  await expect(row).toContainText(shownIn(deliverAt, 'Asia/Tokyo'));
  await expect(row).toContainText('11/13/2030 12:00 AM');
  await row.getByRole('link', { name: 'Edit Tokyo morning' }).click();
  await expect(page.getByRole('button', { name: /^Delivery date/ })).toContainText('2030-11-13');
  await expect(page.getByRole('combobox', { name: /^Delivery time/ })).toHaveValue('12:00 AM');
  await expect(page.getByText(/Times are in your time zone, Asia\/Tokyo \(UTC\+09:00\)/)).toBeVisible();
  await page.goto(`${baseUrl()}/credit-log`);
  await expect(page.getByTestId('data-table')).toContainText(shownIn(trialAt, 'Asia/Tokyo'));

  // Email, first a typo: the change waits with Cancel beside it, the old address is told how to
  // undo it, and Cancel (by keyboard) spends its link (R41).
  await page.goto(`${baseUrl()}/settings/profile`);
  const emailSection = page.getByRole('region', { name: 'Email' });
  const typo = `renamed-${Date.now()}@exmaple.com`;
  await emailSection.getByLabel('New email').fill(typo);
  await emailSection.getByLabel('Current password').fill(user.password);
  await tabTo(page, page.getByRole('button', { name: 'Send confirmation link' }));
  await page.keyboard.press('Enter');
  const pending = page.getByTestId('profile-pending-email');
  await expect(pending).toContainText(typo);
  await expectAccessible(page, 'profile, a change of email waiting with Cancel');
  const asked = await waitForMail(user.email, { subject: 'Someone asked to change your Sendwell email' });
  expect(asked.text).toContain(typo);
  const undoLink = asked.text.match(/https?:\/\/\S+\/settings\/profile\/undo-email\/[\w.-]+/)?.[0];
  expect(undoLink).toBeTruthy();
  const typoLink = (await waitForMail(typo)).text.match(
    /https?:\/\/\S+\/settings\/profile\/confirm-email\/[\w-]+/,
  )?.[0];
  expect(typoLink).toBeTruthy();
  await tabTo(page, pending.getByRole('button', { name: `Cancel the change to ${typo}` }));
  await page.keyboard.press('Enter');
  await expect(page.getByText(`The change to ${typo} is cancelled; its link no longer works.`)).toBeVisible();
  await expect(pending).toHaveCount(0);
  // The cancelled change's link answers as a used one; the old address's undo link says nothing is waiting.
  await page.goto(`${baseUrl()}${new URL(typoLink!).pathname}`);
  await expect(page.getByText(/This link is invalid, used or more than 24 hours old/)).toBeVisible();
  await page.goto(`${baseUrl()}${new URL(undoLink!).pathname}`);
  await expectAccessible(page, 'undo an email change');
  await tabTo(page, page.getByRole('button', { name: 'Undo the change' }));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('email-change-undone')).toContainText(
    `That change did not happen and can no longer happen. Your email is ${user.email}.`,
  );

  // Email: a link goes to the new address; nothing changes until it is opened.
  const newEmail = `renamed-${Date.now()}@example.com`;
  await page.goto(`${baseUrl()}/settings/profile`);
  await emailSection.getByLabel('New email').fill(newEmail);
  await emailSection.getByLabel('Current password').fill(user.password);
  await tabTo(page, page.getByRole('button', { name: 'Send confirmation link' }));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('profile-pending-email')).toContainText(newEmail);
  await expect(page.getByTestId('profile-email')).toHaveText(user.email);
  await expectAccessible(page, 'profile, email waiting for its link');
  const mail = await waitForMail(newEmail);
  expect(mail.subject).toBe('Confirm your new Sendwell email');
  const link = mail.text.match(/https?:\/\/\S+\/settings\/profile\/confirm-email\/[\w-]+/)?.[0];
  expect(link).toBeTruthy();
  await page.goto(`${baseUrl()}${new URL(link!).pathname}`);
  await expect(page.getByTestId('email-confirmed')).toContainText(`Your email is now ${newEmail}.`);
  await expectAccessible(page, 'email confirmed');
  expect((await waitForMail(user.email, { subject: 'Your Sendwell email was changed' })).text).toContain(
    '/settings/profile/undo-email/',
  );

  // Password: the current one asked; the other device is signed out, this one stays.
  await page.goto(`${baseUrl()}/settings/profile`);
  await expect(page.getByTestId('profile-email')).toHaveText(newEmail);
  const passwordSection = page.getByRole('region', { name: 'Password' });
  await passwordSection.getByLabel('Current password').fill(user.password);
  await passwordSection.getByLabel('New password', { exact: true }).fill('another-secret');
  await passwordSection.getByLabel('Confirm new password').fill('another-secret');
  await tabTo(page, passwordSection.getByRole('button', { name: 'Change password' }));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Your password has been changed. Every other device was signed out.')).toBeVisible();
  await expect(otherPage.getByText('Your session has ended. Please sign in again.')).toBeVisible();
  await expect(otherPage).toHaveURL(/\/login/);
  await page.reload();
  await expect(page.getByTestId('user-name')).toHaveText('Pat Renamed');
  await otherDevice.close();

  // Sign out everywhere: asked in a dialog, then this tab is signed out too.
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, 'profile, sign out everywhere asked');
  await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByText(/Every device, this one included, was signed out/)).toBeVisible();
});
