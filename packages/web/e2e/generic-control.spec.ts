import { expect, test } from '@playwright/test';
import {
  baseUrl,
  expectAccessible,
  journeyUser,
  seedList,
  seedTestInboxAccount,
  signIn,
  tabTo,
  withDatabase,
} from './support';

/**
 * Generic Email Control (issue 47, spec §2 screen 5, §5): the list's generic addresses,
 * unsubscribed (not deleted) once the checkbox is ticked, with the keyboard; 'Success!' with
 * OK; opened again it finds none.
 */
test('Generic Email Control unsubscribes the generic members by keyboard; they stay on the list', async ({ page }) => {
  const user = journeyUser('Gina Generic');
  const userId = await withDatabase(
    async (client) =>
      (await client.query<{ id: string }>('select id from users where email = $1', [user.email])).rows[0]!.id,
  );
  const accountId = await seedTestInboxAccount(userId, 'news@acme.test');
  await seedList({
    userId,
    accountId,
    alias: 'shops',
    name: 'Shops',
    members: ['info@shop.example', 'sales@shop.example', 'ann@shop.example'],
  });
  await signIn(page, user);
  await page.goto(`${baseUrl()}/mailing-lists`);
  const { keyboard } = page;

  const actions = page.getByRole('button', { name: 'Actions for shops@example.com' });
  await tabTo(page, actions);
  await keyboard.press('Enter');
  const item = page.getByRole('menuitem', { name: 'Generic Email Control' });
  await expect(item).toBeVisible();
  while (!(await item.evaluate((element) => element === document.activeElement))) await keyboard.press('ArrowDown');
  await keyboard.press('Enter');

  const dialog = page.getByRole('dialog', { name: 'Generic Email Control' });
  await expect(dialog.getByTestId('generic-emails')).toContainText('info@shop.example');
  await expect(dialog.getByTestId('generic-emails')).toContainText('sales@shop.example');
  await expect(dialog.getByTestId('generic-emails')).not.toContainText('ann@shop.example');
  const unsubscribe = dialog.getByRole('button', { name: 'Unsubscribe them' });
  await expect(unsubscribe).toBeDisabled();
  await expectAccessible(page, 'Generic Email Control');
  await tabTo(page, dialog.getByLabel('I want to unsubscribe these addresses'));
  await keyboard.press('Space');
  await expect(unsubscribe).toBeEnabled();
  await tabTo(page, unsubscribe);
  await keyboard.press('Enter');

  const success = page.getByRole('dialog', { name: 'Success!' });
  await expect(success).toContainText('2 generic addresses were unsubscribed');
  await expectAccessible(page, 'Generic Email Control, Success!');
  await keyboard.press('Enter');
  await expect(success).toBeHidden();

  // Still on the list, unsubscribed.
  const members = await withDatabase(
    async (client) =>
      (
        await client.query<{ email: string; subscribed: boolean }>(
          'select email, subscribed from list_members where user_id = $1 order by email',
          [userId],
        )
      ).rows,
  );
  expect(members).toEqual([
    { email: 'ann@shop.example', subscribed: true },
    { email: 'info@shop.example', subscribed: false },
    { email: 'sales@shop.example', subscribed: false },
  ]);

  // Opened again, it finds none.
  await actions.click();
  await page.getByRole('menuitem', { name: 'Generic Email Control' }).click();
  await expect(page.getByRole('dialog', { name: 'Generic Email Control' })).toContainText(
    'Excellent! There are no generic emails in your mailing list.',
  );
});
