import { expect, test } from '@playwright/test';
import {
  baseUrl,
  expectAccessible,
  inboxOf,
  journeyUser,
  seedList,
  seedTestInboxAccount,
  signInOnce,
  stateFile,
  tabTo,
  userIdOf,
  withDatabase,
  writeHtmlMessage,
} from './support';

/**
 * Issue 31 §4 in the browser: an A/B subject test set up on Send Email by keyboard, one
 * subject's message opened as a mail client opens it (its open pixel loaded), the decision
 * after a wait of a fraction of a minute, and History showing each subject's figures and the
 * winner, whose subject the rest of the recipients get.
 */

const STATE = stateFile('ab-test');
test.use({ storageState: STATE });

const MEMBERS = Array.from({ length: 10 }, (_, index) => `reader${index + 1}@example.com`);
const SUBJECT_A = `Spring news ${Date.now()}`;
const SUBJECT_B = `Spring sale, half price ${Date.now()}`;
/** The wait before the winner is chosen, in minutes: long enough to open a message first, short for a journey. */
const WAIT_MINUTES = '0.4';
let accountId = 0;

test.beforeAll(async () => {
  const user = journeyUser('Abby Splitter', { plan: 3 });
  const userId = await userIdOf(user.email);
  // The built-in test inbox as the user's account (the accounts journey connects one through the form).
  const account = await seedTestInboxAccount(userId, 'abby@example.com');
  await seedList({
    userId,
    accountId: account,
    alias: 'spring',
    name: 'Spring readers',
    members: MEMBERS,
    verified: true,
  });
  accountId = Number(account);
  await signInOnce(user, STATE);
});

/** The A/B test's state, as its decision job leaves it. */
const testStatus = () =>
  withDatabase(
    async (client) =>
      (
        await client.query<{ status: string }>(
          'select t.status from ab_tests t join sends s on s.id = t.lead_send_id where s.subject = $1',
          [SUBJECT_A],
        )
      ).rows[0]!.status,
  );

test('tests two subjects on a share, opens B as a mail client would, and sends B to the rest; History shows why', async ({
  page,
}) => {
  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Abby');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Spring readers/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill(SUBJECT_A);
  await writeHtmlMessage(page, '<p>Hello {{name}}, spring is here.</p>');

  // The A/B section by keyboard: the switch, then its fields.
  const abSwitch = page.getByRole('switch', { name: 'A/B test' });
  await tabTo(page, abSwitch);
  await page.keyboard.press('Space');
  const fields = page.getByTestId('ab-test-fields');
  await expect(fields).toBeVisible();
  const subjectB = fields.getByLabel('Subject B');
  await tabTo(page, subjectB);
  await page.keyboard.type(SUBJECT_B);
  await fields.getByLabel('Unit of the wait').click();
  await page.getByRole('option', { name: 'minutes' }).click();
  await fields.getByLabel('Choose the winner after').fill(WAIT_MINUTES);
  await expect(page.getByTestId('ab-test-summary')).toContainText(
    '1 recipient gets each subject now; after 24 seconds the subject with the better open rate goes to the other 8.',
  );
  await expectAccessible(page, 'send email with the A/B test section open');

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Send this email?' });
  await expect(confirm.getByTestId('confirm-ab-test')).toHaveText(
    '2 subjects, 1 recipient each now; after 24 seconds the better open rate goes to the other 8.',
  );
  await expectAccessible(page, 'send confirmation of an A/B test');
  await confirm.getByRole('button', { name: 'Yes, send it' }).click();
  await expect(page.getByText(/Your A\/B test is on its way/)).toBeVisible();

  // Subject B's message arrives; its reader's mail client loads the open pixel, before the decision.
  await expect.poll(async () => (await inboxOf(SUBJECT_B)).length, { timeout: 20_000 }).toBe(1);
  await expect.poll(async () => (await inboxOf(SUBJECT_A)).length, { timeout: 20_000 }).toBe(1);
  const [opened] = await inboxOf(SUBJECT_B);
  const pixel = opened!.html_body.match(/src="([^"]*\/api\/t\/o\/[^"]+)"/)![1]!.replace(/&amp;/g, '&');
  expect((await page.request.get(pixel)).status()).toBe(200);
  expect(await testStatus(), 'the decision waited for the open').toBe('testing');

  // History lists each part with its badge.
  await page.goto(`${baseUrl()}/history`);
  await expect(page.getByTestId('history-ab-test').filter({ hasText: 'A/B test · subject B' })).toBeVisible();
  await expect(page.getByTestId('history-ab-test').filter({ hasText: 'A/B test · winner to the rest' })).toBeVisible();
  await expectAccessible(page, 'history with an A/B test');

  // The decision runs by itself after the wait; the rest gets subject B, nobody twice.
  const restId = await withDatabase(
    async (client) =>
      (
        await client.query<{ id: string }>(
          `select r.id from sends r join sends l on l.id = r.split_group where l.subject = $1 and r.split_part = 0`,
          [SUBJECT_A],
        )
      ).rows[0]!.id,
  );
  await expect.poll(testStatus, { timeout: 90_000, intervals: [1_000] }).toBe('decided');
  await page.goto(`${baseUrl()}/history/details/${accountId}/${restId}`);
  const result = page.getByTestId('ab-test-result');
  await expect(result.getByTestId('ab-test-status')).toHaveText('decided');
  await expect(result.getByTestId('ab-test-decision')).toContainText('Subject B won by open rate, chosen at');
  await expect(result.getByTestId('ab-test-decision')).toContainText('Subject B had the best open rate: 100%.');
  const rowB = result.getByTestId('ab-variant-B');
  await expect(rowB).toContainText(SUBJECT_B);
  await expect(rowB).toContainText('winner');
  await expect(rowB.getByRole('cell').nth(4)).toHaveText('100%');
  await expect(result.getByTestId('ab-variant-A').getByRole('cell').nth(4)).toHaveText('0%');
  await expectAccessible(page, 'history details with the A/B test result');
  await expect.poll(async () => (await inboxOf(SUBJECT_B)).length, { timeout: 30_000 }).toBe(1 + 8);
  const everyone = [...(await inboxOf(SUBJECT_A)), ...(await inboxOf(SUBJECT_B))].map((message) => message.rcpt_to[0]);
  expect(everyone.sort()).toEqual([...MEMBERS].sort());
});
