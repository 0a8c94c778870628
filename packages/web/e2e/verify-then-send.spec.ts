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
  writeHtmlMessage,
} from './support';

const SLOW = ['sam@slow.test', 'sue@slow.test', 'tom@slow.test', 'tim@slow.test'];

const userIdOf = (email: string) =>
  withDatabase(
    async (client) =>
      (await client.query<{ id: string }>('select id from users where email = $1', [email])).rows[0]!.id,
  );

/**
 * The verify-lists upsell (issue 47, spec §2 screen 2): from the confirmation, the cost
 * before anything is charged, the lists verified with a progress bar, and the email going out
 * by itself when the verification ends, without the address found invalid. By keyboard.
 * Verification talks to the journeys' DNS and SMTP peers: ann@accept.test is valid,
 * bob@reject.test invalid, and slow.test answers too late (unknown, refunded): its four
 * addresses keep the verification running long enough to watch.
 */
test('verifies the lists from the confirmation, then the email goes out by itself without the invalid address', async ({
  page,
}) => {
  const user = journeyUser('Uma Upsell');
  const userId = await userIdOf(user.email);
  const accountId = await seedTestInboxAccount(userId, 'news@acme.test');
  await seedList({
    userId,
    accountId,
    alias: 'friends',
    name: 'Friends',
    members: ['ann@accept.test', 'bob@reject.test', ...SLOW],
  });
  await signIn(page, user);
  await page.goto(`${baseUrl()}/send-email`);
  const { keyboard } = page;

  await page.getByLabel('Sender Name').fill('Uma');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Friends/ }).click();
  await keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Checked before it went');
  await writeHtmlMessage(page, '<p>Hello {{name::there}}</p>');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  // The confirmation's one warning about unverified recipients offers Verify, then send.
  const confirm = page.getByRole('dialog', { name: 'Send this email?' });
  const warning = confirm.getByTestId('unverified-warning');
  await expect(warning).toBeVisible();
  await tabTo(page, warning.getByRole('button', { name: 'Verify, then send' }));
  await keyboard.press('Enter');

  // The cost before anything is charged.
  const upsell = page.getByRole('dialog', { name: 'Verify the lists, then send' });
  await expect(upsell.getByTestId('upsell-cost')).toHaveText(
    'Verifying them costs 6 credits (one per address not checked before); you have 300.',
  );
  await expect(upsell.getByRole('checkbox', { name: /Leave out the addresses found invalid/ })).toBeChecked();
  await expect(page.getByTestId('credit-balance')).toHaveText('300');
  await expectAccessible(page, 'verify-lists upsell, the cost');
  await tabTo(page, upsell.getByRole('button', { name: 'Verify, then send' }));
  await keyboard.press('Enter');

  // The progress bar, in the dialog and on the page; closing the dialog changes nothing.
  await expect(upsell.getByRole('progressbar', { name: 'Verification of the lists' })).toBeVisible();
  await expect(upsell.getByText('The email goes out by itself')).toBeVisible();
  await expectAccessible(page, 'verify-lists upsell, verifying');
  await tabTo(page, upsell.getByRole('button', { name: 'Carry on' }));
  await keyboard.press('Enter');
  await expect(upsell).toBeHidden();
  const waiting = page.getByTestId('waiting-send');
  await expect(waiting.getByRole('progressbar', { name: 'Verification of the lists' })).toBeVisible();
  await expectAccessible(page, 'Send Email, a send waiting for its lists');

  // The verification ends: the send goes out by itself, and its progress card takes the place.
  const progress = page.getByTestId('send-progress');
  await expect(progress).toContainText('finished', { timeout: 60_000 });
  await expect(waiting).toHaveCount(0);
  await expect(progress).toContainText('5 of 5');

  // ann and the slow ones (unknown: kept) got it; bob, found invalid, was unsubscribed and got nothing.
  const inbox = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages?per_page=50`)).json();
  const sent = inbox.data.filter((item: { subject: string }) => item.subject === 'Checked before it went');
  expect(sent.map((item: { rcpt_to: string[] }) => item.rcpt_to[0]!.toLowerCase()).sort()).toEqual(
    ['ann@accept.test', ...SLOW].sort(),
  );
  const bob = await withDatabase(
    async (client) =>
      (
        await client.query<{ subscribed: boolean }>(
          `select subscribed from list_members where user_id = $1 and email = 'bob@reject.test'`,
          [userId],
        )
      ).rows[0]!.subscribed,
  );
  expect(bob).toBe(false);
  // 6 credits charged; the four unknown verdicts given back.
  await expect(page.getByTestId('credit-balance')).toHaveText('298');
});
