import { expect, type Page, test } from '@playwright/test';
import sharp from 'sharp';
import { accountOf, admin, baseUrl, connectTestInbox, expectAccessible, seedList, signIn, tabTo } from './support';

/**
 * The email editor (issue 46): build an email with two columns, an uploaded image and a
 * button; move blocks with the keyboard alone; go Visual → HTML → Visual without losing a
 * block; save it as a template and use it again; send it to the test inbox and read it there,
 * the image loaded from Sendwell's own /media/ URL and the columns stacked at 390 pixels.
 */

/** A photo as a phone writes one: a JPEG with the camera's name in its EXIF. */
const photo = () =>
  sharp({ create: { width: 480, height: 320, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .withExif({ IFD0: { Make: 'JourneyCam' } })
    .jpeg()
    .toBuffer();

/** The types of the message's top-level blocks, in order. */
const topLevelTypes = (page: Page) =>
  page
    .getByRole('list', { name: 'Blocks of the message' })
    .evaluate((list) =>
      Array.from(list.children, (item) => (item as HTMLElement).dataset.testid?.replace('block-', '') ?? ''),
    );

test('builds two columns with an uploaded image and a button, moves blocks by keyboard, round-trips through HTML, saves a template, and the email arrives as built', async ({
  page,
}) => {
  const user = { email: `builder-${Date.now()}@example.com`, password: 'secret123', name: 'Bea Builder' };
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  await signIn(page, user);
  await connectTestInbox(page);
  const { userId, accountId } = await accountOf(user.email);
  await seedList({
    userId,
    accountId,
    alias: 'builders',
    name: 'Builders',
    members: [{ email: 'yara@example.com', fullname: 'Yara Smith' }],
    verified: true,
  });

  await page.goto(`${baseUrl()}/send-email`);
  await page.getByLabel('Sender Name').fill('Bea');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Builders/ }).click();
  await page.keyboard.press('Escape');
  await page.getByLabel('Subject').fill('Built for {{first_name::you}}');

  // A new message opens in Visual mode: a heading, a text open for typing, the footer.
  const editor = page.getByTestId('email-editor');
  await expect(editor.getByRole('list', { name: 'Blocks of the message' })).toBeVisible();
  expect(await topLevelTypes(page)).toEqual(['heading', 'text', 'footer']);
  const text = page.getByRole('textbox', { name: 'Message', exact: true });
  await text.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Hi ');
  await editor.getByRole('button', { name: 'Personalise' }).click();
  await page.getByRole('menuitem', { name: /First name/ }).click();
  await text.click();
  await page.keyboard.press('End');
  await page.keyboard.type(', here is what we built this week for you and your team.');
  await expectAccessible(page, 'email editor, Visual mode');

  // Two columns: the first gets an uploaded image, the second keeps its text.
  await editor.getByRole('button', { name: 'Add a block' }).click();
  await page.getByRole('menuitem', { name: '2 columns' }).click();
  const section = editor.getByTestId('block-section');
  await expect(section).toBeVisible();
  await section.getByRole('button', { name: 'Add to column' }).first().click();
  await page.getByRole('menuitem', { name: 'Image', exact: true }).click();
  await page.getByRole('button', { name: 'Upload or choose an image' }).click();
  const picker = page.getByRole('dialog', { name: 'Choose an image' });
  await expectAccessible(page, 'media library');
  const chooser = page.waitForEvent('filechooser');
  await picker.getByRole('button', { name: 'Upload an image' }).click();
  await (await chooser).setFiles({ name: 'workshop.jpg', mimeType: 'image/jpeg', buffer: await photo() });
  await expect(picker).toBeHidden();
  const source = page.getByLabel('Image address (URL)');
  await expect(source).toHaveValue(/^https?:\/\/[^/]+\/media\/[0-9a-f]{64}$/);
  const imageUrl = await source.inputValue();
  await page.getByLabel('Alternative text').fill('Our workshop');
  // The uploaded file is served by Sendwell, re-encoded, without the camera's name.
  const served = await page.request.get(imageUrl);
  expect(served.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect((await served.body()).includes(Buffer.from('JourneyCam'))).toBe(false);

  // A button, then moved up above the columns and the text with the keyboard alone.
  await editor.getByRole('button', { name: 'Add a block' }).click();
  await page.getByRole('menuitem', { name: 'Button', exact: true }).click();
  await page.getByLabel('Button text').fill('See the workshop');
  await page.getByLabel('Link', { exact: true }).fill(`${baseUrl()}/login?from=builder`);
  expect(await topLevelTypes(page)).toEqual(['heading', 'text', 'footer', 'section', 'button']);
  const buttonUp = editor.getByRole('button', { name: 'Move Button up' });
  await tabTo(page, buttonUp, { backwards: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Button moved to position 4 of 5.' })).toBeAttached();
  await expect(buttonUp).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Button moved to position 3 of 5.' })).toBeAttached();
  // The footer goes last again, by keyboard: its own Move down. At the end that arrow is
  // disabled, so focus stays in the block's toolbar, on Move up.
  const footerDown = editor.getByRole('button', { name: 'Move Footer down' });
  await tabTo(page, footerDown);
  await page.keyboard.press('Enter');
  await expect(editor.getByRole('button', { name: 'Move Footer up' })).toBeFocused();
  expect(await topLevelTypes(page)).toEqual(['heading', 'text', 'button', 'section', 'footer']);
  await expectAccessible(page, 'email editor with columns, image and button');

  // The preview shows it as recipients will: the image from its URL, the member's first name.
  const preview = page.frameLocator('iframe[title="Email preview"]');
  await expect(preview.getByText(/Hi Ada, here is what we built/)).toBeVisible();
  await expect(preview.locator(`img[src="${imageUrl}"]`)).toBeVisible();

  // Visual → HTML → Visual: the same blocks, nothing asked, nothing lost.
  await editor.getByText('HTML', { exact: true }).click();
  const code = page.getByLabel('HTML message', { exact: true });
  await expect(code).toBeVisible();
  await expect(code).toContainText('<!--sw:start-->');
  await expectAccessible(page, 'email editor, HTML mode');
  await editor.getByText('Visual', { exact: true }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await topLevelTypes(page)).toEqual(['heading', 'text', 'button', 'section', 'footer']);
  await expect(editor.getByTestId('block-section').getByRole('img', { name: 'Our workshop' })).toBeVisible();

  // Saved as a template, then used again on a fresh form: the same design opens in Visual mode.
  await page.getByRole('button', { name: 'Save as template' }).click();
  const save = page.getByRole('dialog', { name: 'Save as template' });
  await save.getByLabel('Template name').fill('Workshop news');
  await save.getByRole('button', { name: 'Save template' }).click();
  await expect(save).toBeHidden();
  await page.reload();
  await page.getByLabel('Sender Name').fill('Bea');
  await page.getByLabel('Mailing lists').click();
  await page.getByRole('option', { name: /Builders/ }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Change Template' }).click();
  const gallery = page.getByRole('dialog', { name: 'Choose a template' });
  await expectAccessible(page, 'Change Template gallery');
  await gallery.getByRole('button', { name: 'Use Workshop news' }).click();
  await expect(page.getByLabel('Subject')).toHaveValue('Built for {{first_name::you}}');
  expect(await topLevelTypes(page)).toEqual(['heading', 'text', 'button', 'section', 'footer']);

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const confirm = page.getByRole('dialog').filter({ hasText: 'Yes, send it' });
  await confirm.getByRole('button', { name: 'Yes, send it' }).click();
  await expect(page.getByTestId('send-progress')).toContainText('finished', { timeout: 30_000 });

  // Read in the test inbox: the subject and the text with Yara's first name, the image from
  // /media/, the button's link tracked, one unsubscribe link (the footer block's).
  const inbox = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages?per_page=50`)).json();
  const message = inbox.data.find((item: { subject: string }) => item.subject === 'Built for Yara');
  expect(message).toBeDefined();
  const html = await (await page.request.get(`${baseUrl()}/api/test-inbox/messages/${message.id}/html`)).text();
  expect(html).toContain(`src="${imageUrl}"`);
  expect(html).toContain('Hi Yara, here is what we built');
  expect(html.match(/\/unsubscribe\//g)).toHaveLength(1);

  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${baseUrl()}/test-inbox`);
  await page.getByTestId('data-table').getByText('Built for Yara').click();
  const opened = page.getByTestId('message-preview').frameLocator('iframe');
  const image = opened.locator(`img[src="${imageUrl}"]`);
  await expect(image).toBeVisible();
  expect(await image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  // At 390 pixels the two columns sit one under the other.
  const columns = opened.locator('.sw-col');
  await expect(columns).toHaveCount(2);
  const [first, second] = [await columns.nth(0).boundingBox(), await columns.nth(1).boundingBox()];
  expect(second!.y).toBeGreaterThanOrEqual(first!.y + first!.height - 1);
  expect(Math.abs(second!.x - first!.x)).toBeLessThan(2);
  await expectAccessible(page, 'test inbox at 390 px, the built email open');
});
