import { expect, test } from '@playwright/test';
import {
  accountOf,
  admin,
  baseUrl,
  connectTestInbox,
  expectAccessible,
  seedList,
  signIn,
  tabTo,
  withDatabase,
  writeHtmlMessage,
} from './support';

const user = { email: `bounces-${Date.now()}@example.com`, password: 'secret123', name: 'Bea Bounce' };

test('a bounce from a send shows on the suppression screen with the server’s words; unsubscribed from the list, then removed', async ({
  page,
}) => {
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);
  await connectTestInbox(page);

  // A list with one good address and one at bounce.test, which the test inbox refuses (550 5.1.1).
  const { userId, accountId } = await accountOf(user.email);
  await seedList({
    userId,
    accountId,
    alias: 'bouncy',
    name: 'Bouncy',
    members: ['ann@example.com', 'nobody@bounce.test'],
  });

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Bea');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Bouncy/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Hello');
  await writeHtmlMessage(page, '<p>Hello</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, send it' }).click();
  await expect(page.getByTestId('send-progress')).toContainText('finished', { timeout: 30_000 });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Suppression' }).click();
  const table = page.getByTestId('data-table');
  const row = table.getByRole('row', { name: /nobody@bounce\.test/ });
  await expect(row).toContainText('bounce');
  await expect(row).toContainText('On List');
  await expect(table).not.toContainText('ann@example.com');
  await expectAccessible(page, 'suppression');

  await row.getByRole('button', { name: 'Expand row' }).click();
  await expect(table).toContainText('550 5.1.1');
  await expect(table.getByRole('link', { name: 'bouncy@example.com' })).toBeVisible();
  await expectAccessible(page, 'suppression, a row expanded');

  // Keyboard: unsubscribe the address from every list.
  await tabTo(page, row.getByRole('button', { name: 'Unsubscribe nobody@bounce.test' }));
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Unsubscribe?' });
  await expect(confirm).toContainText('nobody@bounce.test');
  await tabTo(page, confirm.getByRole('button', { name: 'Unsubscribe' }));
  await page.keyboard.press('Enter');
  // 'Success!' with OK (spec §8), its OK focused: Enter closes it.
  await expect(page.getByRole('dialog', { name: 'Success!' })).toBeVisible();
  await expectAccessible(page, 'suppression, Success! dialog');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Success!' })).toBeHidden();
  await expect(table).not.toContainText('nobody@bounce.test');

  await page.getByLabel('Show hidden').check();
  await expect(table.getByRole('row', { name: /nobody@bounce\.test/ })).toContainText('Cleaned');
  await table
    .getByRole('row', { name: /nobody@bounce\.test/ })
    .getByRole('button', { name: 'Expand row' })
    .click();
  await page.getByRole('button', { name: 'Remove from suppression' }).click();
  await page.getByRole('dialog', { name: 'Remove from suppression?' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('dialog', { name: 'Success!' }).getByRole('button', { name: 'OK' }).click();
  await expect(table).not.toContainText('nobody@bounce.test');

  // The temporary rule: an address that soft-bounced three times within 15 days is held back
  // for 30 days. The screen says so, and when the hold lifts.
  await expect(page.getByTestId('temporary-rule')).toContainText('soft-bounce 3 times within 15 days');
  await withDatabase(async (client) => {
    await client.query(
      `insert into suppressions (user_id, email, type, quantity, reason, message, source, expires_at)
       select u.id, 'ann@example.com', 'temporary', 1, 'mailbox full', '552 5.2.2 Mailbox full', 'smtp',
              now() + interval '30 days'
         from users u where u.email = $1`,
      [user.email],
    );
  });
  await page.reload();
  const held = page.getByTestId('data-table').getByRole('row', { name: /ann@example\.com/ });
  await expect(held).toContainText('temporary');
  await expect(held).toContainText('until');
  await expectAccessible(page, 'suppression, a temporary suppression');
});
