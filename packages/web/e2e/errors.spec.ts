import { expect, type Page, test } from '@playwright/test';
import { baseUrl, expectAccessible, journeyUser, signInOnce, stateFile, withDatabase } from './support';

/**
 * The spec's error catalogue, on a real mutation: 'Mark all as read'. This file's own user
 * (the other journeys, running beside it, leave its notifications alone), signed in once.
 */
const STATE = stateFile('errors');
test.use({ storageState: STATE });

test.beforeAll(async () => {
  const user = journeyUser('Eric Errors');
  await withDatabase(async (client) => {
    await client.query(
      `insert into notifications (user_id, title, body) select id, 'Unread for the error journey', '' from users where email = $1`,
      [user.email],
    );
  });
  await signInOnce(user, STATE);
});

const markAllAnswering = async (page: Page, status: number, body: unknown) => {
  await page.route('**/api/notifications/read', (route) =>
    route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) }),
  );
  await page.getByRole('button', { name: 'Mark all as read' }).click();
};

test.beforeEach(async ({ page }) => {
  await page.goto(`${baseUrl()}/notifications`);
  await expect(page.getByRole('button', { name: 'Mark all as read' })).toBeEnabled();
});

test('a 422 shows the first message of each field as a toast', async ({ page }) => {
  await markAllAnswering(page, 422, {
    message: 'The ids must be numbers.',
    errors: { ids: ['The ids must be numbers.', 'A second message for ids.'], scope: ['The scope is invalid.'] },
  });
  await expect(page.getByText('The ids must be numbers.')).toBeVisible();
  await expect(page.getByText('The scope is invalid.')).toBeVisible();
  await expect(page.getByText('A second message for ids.')).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expectAccessible(page, 'notifications with validation toasts');
});

test('another HTTP error opens an Error! dialog with the server’s message', async ({ page }) => {
  await markAllAnswering(page, 500, { status: false, message: 'Something went wrong on our side. Please try again.' });
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('Error!')).toBeVisible();
  await expect(dialog.getByText('Something went wrong on our side. Please try again.')).toBeVisible();
  await expectAccessible(page, 'Error! dialog');
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('a status:false answer shows the server message titled Error', async ({ page }) => {
  await markAllAnswering(page, 200, { status: false, message: 'Nothing could be marked.' });
  await expect(page.getByText('Nothing could be marked.')).toBeVisible();
  await expect(page.getByText('Error', { exact: true })).toBeVisible();
  await expectAccessible(page, 'notifications with an error toast');
});
