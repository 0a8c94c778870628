import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { baseUrl, expectAccessible, journeyUser, signIn } from './support';

/**
 * Settings → API keys and Webhooks (issue 48 §2, §3): a key made, shown once, used and
 * revoked; a webhook registered with its secret, a test event received signed, its log.
 */
test('an integrator makes an API key, uses it, and revokes it', async ({ page }) => {
  const user = journeyUser('Ines Integrator', { plan: 3 });
  await signIn(page, user);
  await page.goto(`${baseUrl()}/settings/api-keys`);
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeVisible();
  await expect(page.getByText('No API keys yet.')).toBeVisible();
  await expectAccessible(page, 'API keys, none yet');

  await page.getByLabel('Name').fill('Shop');
  await page.getByRole('checkbox', { name: /reports:read/ }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByTestId('new-api-key-value');
  await expect(shown).toHaveText(/^sw_[A-Za-z0-9_-]{40}$/);
  const key = (await shown.textContent())!.trim();
  const row = page.getByTestId('api-key-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Shop');
  await expect(row).toContainText(key.slice(0, 10));
  await expect(row).not.toContainText(key.slice(10));
  await expectAccessible(page, 'API keys, a new key shown once');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toHaveCount(0);

  // The key works from outside the browser: no cookie, no CSRF token.
  const withKey = () =>
    page.request.get(`${baseUrl()}/api/history`, {
      headers: { authorization: `Bearer ${key}`, cookie: '' },
    });
  expect((await withKey()).status()).toBe(200);

  await row.getByRole('button', { name: /Revoke/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Revoke “Shop”?');
  await expectAccessible(page, 'API keys, revoking one');
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(row).toContainText('Revoked');
  expect((await withKey()).status()).toBe(401);
});

test('an integrator registers a webhook, sends a test event and reads the log', async ({ page }) => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/sendwell`;
  try {
    const user = journeyUser('Wes Webhooks', { plan: 3 });
    await signIn(page, user);
    await page.goto(`${baseUrl()}/settings/webhooks`);
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expectAccessible(page, 'webhooks, none yet');

    // A private address is refused with the reason, beside the field.
    await page.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data/');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.getByText(/does not deliver webhooks to local, private or metadata addresses/)).toBeVisible();

    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Description (optional)').fill('CRM');
    await page.getByRole('checkbox', { name: /send\.finished/ }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.getByTestId('new-webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    const card = page.getByTestId('webhook-card');
    await expect(card).toContainText(url);
    await expect(card).toContainText('send.finished');
    await expectAccessible(page, 'webhooks, one registered with its secret shown');
    await page.getByRole('button', { name: 'I have copied it' }).click();

    await card.getByRole('button', { name: 'Send a test event' }).click();
    await expect(page.getByText('Test event delivered')).toBeVisible();
    expect(received).toHaveLength(1);
    const [delivery] = received;
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'webhook.test' });
    const signature = String(delivery!.headers['sendwell-signature']);
    const [, timestamp, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature)!;
    expect(v1).toBe(createHmac('sha256', secret).update(`${timestamp}.${delivery!.body}`).digest('hex'));

    await card.getByRole('button', { name: 'Show log' }).click();
    const log = card.getByTestId('webhook-delivery');
    await expect(log).toHaveCount(1);
    await expect(log).toContainText('webhook.test');
    await expect(log).toContainText('delivered');
    await expectAccessible(page, 'webhooks, the log open');

    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await expect(page.getByText('No webhooks yet.')).toBeVisible();
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
