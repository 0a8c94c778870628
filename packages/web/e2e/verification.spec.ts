import { expect, test } from '@playwright/test';
import { admin, baseUrl, expectAccessible, seedList, signIn, tabTo, userIdOf, withDatabase } from './support';

test('verifies pasted addresses: the credits confirmed, the job queued, results live, filtered and downloadable', async ({
  page,
}) => {
  const user = { email: `verify-${Date.now()}@example.com`, password: 'secret123', name: 'Vera Verify' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);
  await page.goto(`${baseUrl()}/tools/email-verification`);
  await expect(page.getByText('No verifications yet.')).toBeVisible();
  await expectAccessible(page, 'email verification, empty');

  // Keyboard only: type the addresses, Verify, confirm. A line that is no address is counted
  // apart as it is typed, the way the server will count it: free, listed as invalid.
  await page.getByLabel('Emails').focus();
  await page.keyboard.type(
    'ann@accept.test\nJohn Doe <bob@accept.test>\nANN@accept.test\nwhoever@catchall.test\nte st@accept.test',
  );
  await expect(page.getByTestId('paste-summary')).toHaveText(
    '3 addresses, 1 repeat left out, 1 entry not an address (free)',
  );
  await tabTo(page, page.getByRole('button', { name: 'Verify', exact: true }));
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Verify these emails?' });
  await expect(confirm).toContainText('3 distinct addresses; 1 duplicate left out');
  await expect(confirm.getByTestId('verify-skipped')).toContainText('5: te st@accept.test — invalid email address');
  await expect(confirm).toContainText('Credits to use: 3 of 300 available');
  await expectAccessible(page, 'verification confirmation');
  await tabTo(page, confirm.getByRole('button', { name: 'Verify 3' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Verification queued' })).toContainText(
    'Your request is in the queue...',
  );
  await expect(page.getByRole('dialog', { name: 'Verification queued' })).toBeHidden({ timeout: 6_000 });

  const jobs = page.getByRole('table', { name: 'Your verifications' });
  await expect(jobs).toContainText('finished', { timeout: 30_000 });
  await expect(jobs).toContainText('1 / 2 / 1');
  await expect(page.getByTestId('credit-balance')).toHaveText('298');
  await jobs.getByRole('button', { name: 'View results' }).click();
  const results = page.getByRole('table', { name: /Results of verification/ });
  await expect(results).toContainText('ann@accept.test');
  await page.getByLabel('Verdict').selectOption('unknown');
  await expect(results).toContainText('whoever@catchall.test');
  await expect(results).not.toContainText('bob@accept.test');
  await expectAccessible(page, 'verification results');
  const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
  const csv = await (await page.request.get(`${baseUrl()}${href}`)).text();
  expect(csv).toContain('whoever@catchall.test,unknown');
});

test('verifies a CSV file by the column chosen for the email, with the keyboard: rows without one are reported', async ({
  page,
}) => {
  const user = { email: `verify-csv-${Date.now()}@example.com`, password: 'secret123', name: 'Cora Columns' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);
  await page.goto(`${baseUrl()}/tools/email-verification`);
  const { keyboard } = page;

  await tabTo(page, page.getByRole('button', { name: 'Upload CSV' }));
  await keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Verify a CSV file' });
  await expect(dialog).toBeVisible();
  await tabTo(page, dialog.getByLabel('CSV file'));
  const chooser = page.waitForEvent('filechooser');
  await keyboard.press('Space');
  // No column says "email": the most addresses are in Work mail, but Private mail is the one wanted.
  await (await chooser).setFiles({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      'Name,Work mail,Private mail\nAnn,ann.work@reject.test,ann@accept.test\nBob,bob.work@reject.test,\nCat,cat.work@reject.test,cat@catchall.test\n',
    ),
  });
  const preview = dialog.getByRole('table', { name: 'Preview' });
  await expect(preview).toContainText('ann.work@reject.test');
  await expectAccessible(page, 'verification upload, choosing the email column');
  // The chosen column becomes the email; the one the guess took is freed.
  await tabTo(page, dialog.getByLabel('Use of Private mail'));
  await keyboard.press('ArrowUp');
  await expect(dialog.getByLabel('Use of Private mail')).toHaveValue('email');
  await expect(dialog.getByLabel('Use of Work mail')).toHaveValue('skip');
  await expect(preview).toContainText('ann@accept.test');
  await expect(preview).not.toContainText('ann.work@reject.test');
  await expect(dialog.getByTestId('verify-csv-counts')).toHaveText(
    '2 distinct addresses; 1 row has no email in this column.',
  );
  await tabTo(page, dialog.getByRole('button', { name: 'Continue' }));
  await keyboard.press('Enter');

  const confirm = page.getByRole('dialog', { name: 'Verify these emails?' });
  await expect(confirm).toContainText('2 distinct addresses');
  await expect(confirm.getByTestId('verify-skipped')).toContainText('1 row has no email in the chosen column.');
  await expect(confirm.getByTestId('verify-skipped')).toContainText('3: (empty) — no email in the mapped column');
  await expect(confirm).toContainText('Credits to use: 2 of 300 available');
  await expectAccessible(page, 'verification confirmation of a CSV file');
  await tabTo(page, confirm.getByRole('button', { name: 'Verify 2' }));
  await keyboard.press('Enter');
  const jobs = page.getByRole('table', { name: 'Your verifications' });
  await expect(jobs).toContainText('finished', { timeout: 30_000 });
  // Addresses were taken from the chosen column only: ann valid, cat unknown (catch-all), no reject.test.
  await expect(jobs).toContainText('1 / 0 / 1');
});

test('verifies a mailing list from its menu: the cost, Processing..., then Verified with the members marked', async ({
  page,
}) => {
  const user = { email: `verify-list-${Date.now()}@example.com`, password: 'secret123', name: 'Lena List' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  const userId = await userIdOf(user.email);
  const accountId = await withDatabase(
    async (client) =>
      (
        await client.query<{ id: string }>(
          `insert into sending_accounts (user_id, name, provider, driver, username) values ($1, 'SMTP', 'smtp', 'smtp', 'news@acme.test') returning id`,
          [userId],
        )
      ).rows[0]!.id,
  );
  // slow.test answers after the probe's 1 s timeout, twice: the job runs long enough to be watched.
  await seedList({
    userId,
    accountId,
    alias: 'team',
    domain: 'acme.test',
    name: 'Team',
    members: ['ann@accept.test', 'bob@accept.test', 'sam@slow.test', 'sue@slow.test'].map((email) => ({
      email,
      fullname: '',
    })),
  });
  await signIn(page, user);
  await page.goto(`${baseUrl()}/mailing-lists`);
  // A second tab on the same lists page, never reloaded: it follows the verification live.
  const second = await page.context().newPage();
  await second.goto(`${baseUrl()}/mailing-lists`);
  const secondRow = second.getByTestId('data-table').getByRole('row', { name: /team@acme\.test/ });
  await expect(secondRow).toContainText('Unverified');

  const row = page.getByTestId('data-table').getByRole('row', { name: /team@acme\.test/ });
  await expect(row).toContainText('Unverified');
  await row.getByRole('button', { name: 'Actions for team@acme.test' }).click();
  await page.getByRole('menuitem', { name: 'Verify Your List' }).click();
  const dialog = page.getByRole('dialog', { name: 'Verify team@acme.test' });
  await expect(dialog).toContainText('Credits to use: 4 of 300 available');
  await expectAccessible(page, 'verify a list');
  await dialog.getByRole('button', { name: 'Verify Your List' }).click();
  await expect(page.getByRole('dialog', { name: 'Success!' })).toContainText('Your request is in the queue...');
  await page.getByRole('dialog', { name: 'Success!' }).getByRole('button', { name: 'OK' }).click();
  await expect(secondRow).toContainText('Processing...', { timeout: 10_000 });
  await expect(secondRow.getByRole('progressbar')).toBeVisible();
  await expectAccessible(second, 'mailing lists, a list being verified');
  await expect(secondRow).toContainText('Verified', { timeout: 30_000 });
  await expect(row).toContainText('Verified', { timeout: 30_000 });
  await expect(row).toContainText('1');

  // The import's offer: new members, verified once the import is in; the second tab follows again.
  await row.getByRole('button', { name: 'Actions for team@acme.test' }).click();
  await page.getByRole('menuitem', { name: 'Import CSV' }).click();
  const importModal = page.getByRole('dialog', { name: 'Import members into team@acme.test' });
  await importModal.getByLabel('CSV file').setInputFiles({
    name: 'more.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('email\ncat@accept.test\ndee@catchall.test\ntom@slow.test\ntim@slow.test\n'),
  });
  const verifyOffer = importModal.getByTestId('import-verify');
  await expect(verifyOffer).toBeEnabled();
  await expect(importModal).toContainText('One credit for each address not checked before');
  await expectAccessible(page, 'import dialog with the verification offer');
  await verifyOffer.check();
  await importModal.getByRole('button', { name: 'Save Member List' }).click();
  await expect(secondRow).toContainText('Processing...', { timeout: 30_000 });
  await expect(secondRow).toContainText('Verified', { timeout: 30_000 });
  // Three addresses checked before the import (no charge for them again), four after it, three of them refunded (unknown).
  await expect(page.getByTestId('credit-balance')).toHaveText(/^29[5-9]$/);
  await second.close();
});
