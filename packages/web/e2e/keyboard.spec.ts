import { expect, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, expectVisibleFocus, hasFocusWithin, tabTo } from './support';

const CSV = ['Name,Email', 'Ann Archer,ann@example.com', 'Bob Baker,bob@example.com', ''].join('\n');

// Full motion, as most people see the app (the other journeys ask for reduced motion).
test.use({ reducedMotion: 'no-preference' });

/**
 * The main path with the keyboard alone (issue 18): sign in, connect the test inbox, create
 * a list, import a CSV into it, send to it. Tab, Shift+Tab, Enter, Space, the arrow keys and
 * Escape only; no click anywhere. Every stop checks that focus is visible, and every dialog
 * that focus starts in and returns from where it was opened.
 */
test('signs in, imports a list and sends to it with the keyboard alone', async ({ page }) => {
  test.slow();
  const user = { email: `keys-${Date.now()}@example.com`, password: 'secret123', name: 'Kim Keys' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  const { keyboard } = page;

  // Sign in: Tab into the form, type, Enter submits.
  await page.goto(`${baseUrl()}/login`);
  await tabTo(page, page.getByLabel('Email'));
  await keyboard.type(user.email);
  await tabTo(page, page.getByLabel('Password', { exact: true }));
  await keyboard.type(user.password);
  await keyboard.press('Enter');
  await expect(page.getByTestId('user-name')).toHaveText(user.name);

  // The Settings group opens from the keyboard; its link leads to Sending Accounts.
  const navigation = page.getByRole('navigation', { name: 'Main' });
  const settings = navigation.getByRole('button', { name: 'Settings' });
  await tabTo(page, settings);
  await keyboard.press('Space');
  await expect(settings).toHaveAttribute('aria-expanded', 'true');
  await tabTo(page, navigation.getByRole('link', { name: 'Sending Accounts' }));
  await keyboard.press('Enter');
  await expect(page).toHaveURL(/\/settings\/accounts$/);

  await tabTo(page, page.getByTestId('connect-test-inbox'));
  await keyboard.press('Enter');
  const accountForm = page.getByTestId('account-form');
  await tabTo(page, accountForm.getByLabel('Account Name'));
  await keyboard.type('Test inbox');
  await tabTo(page, accountForm.getByTestId('smtp-test'));
  await keyboard.press('Enter');
  await expect(accountForm.getByText('A test message was sent')).toBeVisible();
  await tabTo(page, accountForm.getByTestId('account-save'));
  await keyboard.press('Enter');
  await expect(page.locator('[data-testid^="account-item-"]')).toHaveCount(1);

  // Mailing Lists, from the navbar.
  await tabTo(page, navigation.getByRole('link', { name: 'Mailing Lists' }), { backwards: true });
  await keyboard.press('Enter');
  await expect(page).toHaveURL(/\/mailing-lists$/);

  // Create List: the dialog takes focus, keeps it, and gives it back to the button.
  const createButton = page.getByRole('button', { name: 'Create List' }).first();
  await tabTo(page, createButton);
  await keyboard.press('Enter');
  const createModal = page.getByRole('dialog', { name: 'Create List' });
  await expect(createModal).toBeVisible();
  expect(await hasFocusWithin(createModal)).toBe(true);
  for (let presses = 0; presses < 15; presses += 1) {
    await keyboard.press('Tab');
    expect(await hasFocusWithin(createModal), 'Tab stays inside the open dialog').toBe(true);
  }
  await keyboard.press('Escape');
  await expect(createModal).toBeHidden();
  await expect(createButton).toBeFocused();
  await expectVisibleFocus(page);

  await keyboard.press('Enter');
  await expect(createModal).toBeVisible();
  await tabTo(page, createModal.getByLabel('Alias'));
  await keyboard.type('keys');
  await tabTo(page, createModal.getByLabel(/^Name/));
  await keyboard.type('Keyboard friends');
  await tabTo(page, createModal.getByRole('button', { name: 'Create List' }));
  await keyboard.press('Enter');
  const listsTable = page.getByRole('table', { name: 'Mailing lists' });
  await expect(listsTable).toContainText('Keyboard friends');
  const address = (await listsTable
    .getByText(/^keys@/)
    .first()
    .textContent())!.trim();

  // The row menu: Enter opens it, the arrow keys move through it.
  const rowActions = page.getByRole('button', { name: `Actions for ${address}` });
  await tabTo(page, rowActions);
  await keyboard.press('Enter');
  const importItem = page.getByRole('menuitem', { name: 'Import CSV' });
  await expect(importItem).toBeVisible();
  while (!(await importItem.evaluate((element) => element === document.activeElement))) {
    await keyboard.press('ArrowDown');
  }
  await expectVisibleFocus(page);
  await keyboard.press('Enter');

  // The import dialog: Space on the file control opens the chooser.
  const importModal = page.getByRole('dialog', { name: `Import members into ${address}` });
  await expect(importModal).toBeVisible();
  expect(await hasFocusWithin(importModal)).toBe(true);
  await tabTo(page, importModal.getByLabel('CSV file'));
  const chooser = page.waitForEvent('filechooser');
  await keyboard.press('Space');
  await (await chooser).setFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await expect(importModal.getByRole('table', { name: 'Preview' })).toContainText('ann@example.com');
  await tabTo(page, importModal.getByRole('button', { name: 'Save Member List' }));
  await keyboard.press('Enter');
  await expect(importModal.getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expectAccessible(page, 'import dialog, finished (keyboard)');
  await keyboard.press('Escape');
  await expect(importModal).toBeHidden();
  // Focus comes back to the row's menu button, not to the top of the page.
  await expect(rowActions).toBeFocused();
  await expectVisibleFocus(page);

  // Send Email, from the navbar.
  await tabTo(page, navigation.getByRole('link', { name: 'Send Email' }), { backwards: true });
  await keyboard.press('Enter');
  await expect(page).toHaveURL(/\/send-email$/);

  await tabTo(page, page.getByLabel('Sender Name'));
  await keyboard.type('Kim');
  // A combobox: ArrowDown opens it, Enter picks the highlighted list, Escape closes it.
  await tabTo(page, page.getByRole('combobox', { name: 'Mailing lists' }));
  await keyboard.press('ArrowDown');
  await expect(page.getByRole('option', { name: /Keyboard friends/ })).toBeVisible();
  await keyboard.press('Enter');
  await keyboard.press('Escape');
  // Change Template (a button) opens the gallery; Tab reaches a template's Use button.
  await tabTo(page, page.getByRole('button', { name: 'Change Template' }));
  await keyboard.press('Enter');
  const gallery = page.getByRole('dialog', { name: 'Choose a template' });
  await expect(gallery).toBeVisible();
  await tabTo(page, gallery.getByRole('button', { name: 'Use Announcement', exact: true }));
  await keyboard.press('Enter');
  await expect(gallery).toBeHidden();
  // A starter template opens in the visual editor, its blocks shown.
  await expect(page.getByTestId('email-editor')).toContainText('Something new is here');
  await tabTo(page, page.getByLabel('Subject'));
  await keyboard.type('Hello from the keyboard');

  const send = page.getByRole('button', { name: 'Send', exact: true });
  await tabTo(page, send);
  await keyboard.press('Enter');
  // The imported members are unverified: the confirmation says so, with a "Verify, then send" a keyboard reaches.
  const confirm = page.getByRole('dialog').filter({ hasText: 'Yes, send it' });
  await expect(confirm).toBeVisible();
  expect(await hasFocusWithin(confirm)).toBe(true);
  await expect(confirm.getByTestId('unverified-cost')).toContainText('Verifying them costs');
  await tabTo(page, confirm.getByTestId('unverified-warning').getByRole('button', { name: 'Verify, then send' }));
  await tabTo(page, confirm.getByRole('button', { name: 'Yes, send it' }));
  await keyboard.press('Enter');

  const progress = page.getByTestId('send-progress');
  await expect(progress).toContainText('finished', { timeout: 30_000 });
  await expect(progress).toContainText('2 of 2');
  await expectAccessible(page, 'Send Email, sent (keyboard)');
});
