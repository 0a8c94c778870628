import { expect, type Page, test } from '@playwright/test';
import { baseUrl, expectAccessible, journeyUser, signInOnce, stateFile, tabTo, withDatabase } from './support';

const TOTAL = 57;

/** This file's own user (the other journeys, running beside it, leave its notifications alone), signed in once. */
const STATE = stateFile('data-table');
test.use({ storageState: STATE });

test.beforeAll(async () => {
  const user = journeyUser('Tabitha Tables');
  await withDatabase(async (client) => {
    const { rows } = await client.query<{ id: string }>('select id from users where email = $1', [user.email]);
    const userId = rows[0]!.id;
    await client.query('delete from notifications where user_id = $1', [userId]);
    await client.query(
      `insert into notifications (user_id, title, body, created_at, read_at)
       select $1, 'Weekly report ' || lpad(n::text, 2, '0'), 'Opens were steady this week',
              timestamptz '2026-01-01 00:00Z' + n * interval '1 hour', now()
       from generate_series(1, ${TOTAL}) as n`,
      [userId],
    );
  });
  await signInOnce(user, STATE);
});

const table = (page: Page) => page.getByTestId('data-table');
const summary = (page: Page) => page.getByText(/^Displaying \d+ of \d+ entries\.$/);

test.beforeEach(async ({ page }) => {
  // Each test starts from the signed-in state alone: no page size stored yet.
  await page.goto(`${baseUrl()}/notifications`);
  await expect(summary(page)).toHaveText(`Displaying 20 of ${TOTAL} entries.`);
});

test('pages with First, Prev, numbered pages, Next and Last', async ({ page }) => {
  await expect(table(page)).toContainText('Weekly report 57');
  await expectAccessible(page, 'notifications, first page');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('button', { name: '2', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(table(page)).toContainText('Weekly report 37');
  await page.getByRole('button', { name: 'Last' }).click();
  await expect(summary(page)).toHaveText(`Displaying 17 of ${TOTAL} entries.`);
  await expect(table(page)).toContainText('Weekly report 01');
  await page.getByRole('button', { name: 'Prev' }).click();
  await expect(page.getByRole('button', { name: '2', exact: true })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('button', { name: 'First' }).click();
  await expect(page.getByRole('button', { name: '1', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('button', { name: 'First' })).toBeDisabled();
  await expectAccessible(page, 'notifications, paged back to the first page');
});

test('pages and sorts with the keyboard alone', async ({ page }) => {
  await tabTo(page, page.getByRole('button', { name: 'Next' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: '2', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('button', { name: 'Next' })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page.getByRole('button', { name: '3', exact: true })).toHaveAttribute('aria-current', 'page');
  const title = page.getByRole('columnheader', { name: /Title/ });
  await tabTo(page, title.getByRole('button'), { backwards: true });
  await page.keyboard.press('Enter');
  await expect(title).toHaveAttribute('aria-sort', 'ascending');
  await expect(table(page).getByRole('row').nth(1)).toContainText('Weekly report 01');
});

test('keeps the chosen page size in localStorage under per_page', async ({ page }) => {
  await page.getByLabel('Rows per page').selectOption('50');
  await expect(summary(page)).toHaveText(`Displaying 50 of ${TOTAL} entries.`);
  expect(await page.evaluate(() => localStorage.getItem('per_page'))).toBe('50');
  await page.reload();
  await expect(summary(page)).toHaveText(`Displaying 50 of ${TOTAL} entries.`);
  await expect(page.getByLabel('Rows per page')).toHaveValue('50');
});

test('searches only at three characters or when cleared', async ({ page }) => {
  const searches: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/notifications') searches.push(url.searchParams.get('search') ?? '');
  });
  const search = page.getByLabel('Search');
  await search.pressSequentially('re', { delay: 50 });
  await page.waitForTimeout(1_000);
  expect(searches).toEqual([]);

  await search.pressSequentially('port 0', { delay: 50 });
  await expect(summary(page)).toHaveText('Displaying 9 of 9 entries.');
  // Debounced: one request for the whole word, not one per key.
  expect(searches).toEqual(['report 0']);

  await search.fill('zzz-nothing');
  await expect(page.getByText('No data found.')).toBeVisible();
  await expectAccessible(page, 'notifications, nothing found');
  await search.fill('');
  await expect(summary(page)).toHaveText(`Displaying 20 of ${TOTAL} entries.`);
});

test('sorts by a header in both directions', async ({ page }) => {
  await page.getByRole('columnheader', { name: /Title/ }).click();
  await expect(table(page).getByRole('row').nth(1)).toContainText('Weekly report 01');
  await page.getByRole('columnheader', { name: /Title/ }).click();
  await expect(table(page).getByRole('row').nth(1)).toContainText('Weekly report 57');
});

test('selects rows one by one and all at once, and expands a row', async ({ page }) => {
  await page.getByLabel('Select row').first().check();
  await expect(page.getByLabel('Select row').first()).toBeChecked();
  await page.getByLabel('Select all').check();
  for (const checkbox of await page.getByLabel('Select row').all()) await expect(checkbox).toBeChecked();
  await page.getByLabel('Expand row').first().click();
  await expect(table(page)).toContainText('Opens were steady this week');
  await expectAccessible(page, 'notifications, rows selected and one expanded');
});

test('shows No data found. when the fetch fails, says the load failed and tries again, without an error dialog', async ({
  page,
}) => {
  await page.route('**/api/notifications?**', (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"status":false,"message":"boom"}' }),
  );
  await page.reload();
  const failed = page.getByTestId('data-table-failed');
  await expect(failed).toContainText('No data found.');
  await expect(failed).toContainText('The entries could not be loaded.');
  await expect(page.getByText('Error!')).toHaveCount(0);
  await expectAccessible(page, 'notifications, the load failed');
  // Try again, once the server answers: the rows come back.
  await page.unroute('**/api/notifications?**');
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(failed).toHaveCount(0);
  await expect(table(page).getByRole('row')).not.toHaveCount(1);
});
