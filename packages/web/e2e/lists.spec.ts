import { expect, test } from '@playwright/test';
import { admin, baseUrl, connectTestInbox, expectAccessible, signIn } from './support';

const CSV = [
  'Name,Email,City',
  'Ann Archer,ann@example.com,Paris',
  'Info Desk,info@example.com,Rome',
  'Bob Baker,bob@example.com,Oslo',
  'Cy Cole,cy@example.com,Lima',
  'Dee Dunn,dee@example.com,Kyiv',
  '',
].join('\n');

test('imports a CSV with headers and a generic address, then edits and bulk-deletes members', async ({ page }) => {
  const user = { email: `lists-${Date.now()}@example.com`, password: 'secret123', name: 'Lena Lists' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password);
  await signIn(page, user);

  // A first run needs no outside account: the test inbox is one.
  await connectTestInbox(page);

  await page.goto(`${baseUrl()}/mailing-lists`);
  await expect(page.getByRole('button', { name: 'Create List' }).first()).toBeVisible();
  await expectAccessible(page, 'mailing lists, none yet');
  await page.getByRole('button', { name: 'Create List' }).first().click();
  const createModal = page.getByRole('dialog', { name: 'Create List' });
  await expectAccessible(page, 'Create List dialog');
  await createModal.getByLabel('Alias').fill('friends');
  await createModal.getByLabel(/^Name/).fill('Friends');
  await createModal.getByRole('button', { name: 'Create List' }).click();
  const listsTable = page.getByRole('table', { name: 'Mailing lists' });
  await expect(listsTable).toContainText('Friends');
  const address = (await listsTable
    .getByText(/^friends@/)
    .first()
    .textContent())!.trim();

  await page.getByRole('button', { name: `Actions for ${address}` }).click();
  await expect(page.getByRole('menuitem', { name: 'Import CSV' })).toBeVisible();
  await expectAccessible(page, 'mailing lists, row menu open');
  await page.getByRole('menuitem', { name: 'Import CSV' }).click();
  const importModal = page.getByRole('dialog', { name: `Import members into ${address}` });
  // Not a CSV: refused before anything is read.
  await importModal.getByLabel('CSV file').setInputFiles({
    name: 'people.xlsx',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from('x'),
  });
  await expect(importModal.getByText('File must be a CSV format.')).toBeVisible();
  await expectAccessible(page, 'import dialog, file refused');
  await importModal.getByLabel('CSV file').setInputFiles({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(CSV),
  });
  await expect(importModal.getByLabel('My file has headers')).toBeChecked();
  // The header says email: that column is mapped and locked.
  await expect(importModal.getByLabel('Use of Email')).toBeDisabled();
  const preview = importModal.getByRole('table', { name: 'Preview' });
  await expect(preview).toContainText('ann@example.com');
  await expect(preview).toContainText('Ann Archer');
  const warning = importModal.getByTestId('generic-warning');
  await expect(warning).toContainText('info@example.com');
  await expectAccessible(page, 'import dialog, preview and mapping');
  await importModal.getByLabel('Remove generic addresses').check();
  await importModal.getByRole('button', { name: 'Save Member List' }).click();

  // The import runs in the worker; the progress card ends with its counts.
  const card = page.getByRole('region', { name: `Import into ${address}` });
  await expect(card.getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText('4 added');
  await expect(card).toContainText('1 skipped');
  await expect(importModal.getByText('Success', { exact: true })).toBeVisible();
  await expectAccessible(page, 'import dialog, finished');
  await importModal.getByRole('button', { name: 'Close' }).last().click();
  await expect(importModal).toBeHidden();

  await page.getByRole('button', { name: `Actions for ${address}` }).click();
  await page.getByRole('menuitem', { name: 'View/Edit Members' }).click();
  const members = page.getByRole('table', { name: `Members of ${address}` });
  await expect(members).toContainText('ann@example.com');
  await expect(members).toContainText('dee@example.com');
  await expect(members).not.toContainText('info@example.com');
  await expectAccessible(page, 'members');

  // Edit one: the email is read-only, the name and subscription change.
  await page.getByRole('button', { name: 'Actions for bob@example.com' }).click();
  await page.getByRole('menuitem', { name: 'Edit' }).click();
  const editModal = page.getByRole('dialog', { name: 'Edit Member' });
  await expect(editModal.getByLabel(/^Email/)).toHaveAttribute('readonly', '');
  await expectAccessible(page, 'Edit Member dialog');
  await editModal.getByLabel(/^Name/).fill('Robert Baker');
  await editModal.getByRole('button', { name: 'Save' }).click();
  await expect(members).toContainText('Robert Baker');

  // Bulk delete two.
  for (const email of ['cy@example.com', 'dee@example.com']) {
    await members
      .getByRole('row', { name: new RegExp(email) })
      .getByRole('checkbox')
      .check();
  }
  await page.getByRole('button', { name: /Delete selected \(2\)/ }).click();
  await expect(page.getByRole('button', { name: 'Delete 2 members' })).toBeVisible();
  await expectAccessible(page, 'delete members dialog');
  await page.getByRole('button', { name: 'Delete 2 members' }).click();
  await page.getByRole('dialog', { name: 'Success!' }).getByRole('button', { name: 'OK' }).click();
  await expect(members).not.toContainText('cy@example.com');
  await expect(members).not.toContainText('dee@example.com');
  await expect(members).toContainText('ann@example.com');
  await expect(page.getByText('Displaying 2 of 2 entries.')).toBeVisible();
  await expectAccessible(page, 'members after a bulk delete');
});
