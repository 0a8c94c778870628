import { createHash } from 'node:crypto';
import { API_KEY_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInWithSmtp, startTestApp, type TAgent, type TTestApp } from '../../../test/app';

/** R45: API keys are hashed at rest, shown once, scoped, revocable at once, rate limited per key. */
const RATE_LIMIT = 20;
let t: TTestApp;

beforeAll(async () => {
  t = await startTestApp({ API_KEY_RATE_LIMIT: String(RATE_LIMIT) });
});
afterAll(async () => t?.close());

const signedIn = () => signedInWithSmtp(t);

const createKey = async (agent: TAgent, scopes: string[], name = 'Integration') => {
  const response = await agent.post('/api/settings/api-keys', { name, scopes });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { key: string; data: { id: number; prefix: string; scopes: string[] } };
};

/** A request as an integrator makes it: the key and nothing else (no cookie, no CSRF token). */
const withKey = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });

describe('API keys (R45)', () => {
  it('shows a key once and stores only its SHA-256', async () => {
    const { user, agent } = await signedIn();
    const { key, data } = await createKey(agent, ['lists:read']);
    expect(key).toMatch(/^sw_[A-Za-z0-9_-]{40}$/);
    expect(key.startsWith(data.prefix)).toBe(true);
    const rows = await t.platform.db.selectFrom('api_keys').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash.equals(createHash('sha256').update(key).digest())).toBe(true);
    // Nothing stored or listed holds the key itself.
    expect(JSON.stringify(rows)).not.toContain(key.slice(10));
    const listed = await agent.get('/api/settings/api-keys');
    expect(listed.body).not.toContain(key.slice(10));
    expect(listed.json().data).toEqual([expect.objectContaining({ id: data.id, scopes: ['lists:read'] })]);
  });

  it('lets a lists:read key read lists, and refuses it writing a list, sending or any unscoped route', async () => {
    const { agent, accountId } = await signedIn();
    await agent.post('/api/mailing-lists', { accountId, alias: 'news', name: 'News' });
    const { key } = await createKey(agent, ['lists:read']);

    const lists = await withKey(key, 'GET', '/api/mailing-lists');
    expect(lists.statusCode, lists.body).toBe(200);
    expect(lists.json().data.map((list: { name: string }) => list.name)).toEqual(['News']);

    const create = await withKey(key, 'POST', '/api/mailing-lists', { accountId, alias: 'other', name: 'Other' });
    expect(create.statusCode).toBe(403);
    expect(create.json()).toMatchObject({
      code: 'API_KEY_SCOPE',
      message: API_KEY_MESSAGES.missingScope('lists:write'),
    });

    const send = await withKey(key, 'POST', '/api/email/transactional', {
      template_id: 1,
      account: accountId,
      senderName: 'Acme',
      to: 'someone@example.com',
    });
    expect(send.statusCode).toBe(403);
    expect(send.json().code).toBe('API_KEY_SCOPE');
    const sendEmail = await withKey(key, 'POST', '/api/email/send', {});
    expect(sendEmail.statusCode).toBe(403);

    // Routes without a scope are the signed-in app's alone: a key cannot make keys or read the profile.
    for (const [method, url] of [
      ['GET', '/api/settings/api-keys'],
      ['POST', '/api/settings/api-keys'],
      ['GET', '/api/settings/profile'],
      ['GET', '/api/user-information'],
    ] as const) {
      const response = await withKey(key, method, url, method === 'POST' ? { name: 'x', scopes: ['send'] } : undefined);
      expect({ url, status: response.statusCode, code: response.json().code }).toEqual({
        url,
        status: 403,
        code: 'API_KEY_NOT_ALLOWED',
      });
    }
    expect(
      await t.platform.db.selectFrom('mailing_lists').select('name').where('name', '=', 'Other').execute(),
    ).toEqual([]);
  });

  it('needs no CSRF token with a key, while a cookie session still does', async () => {
    const { user, agent, accountId } = await signedIn();
    const { key } = await createKey(agent, ['lists:write']);
    const created = await withKey(key, 'POST', '/api/mailing-lists', { accountId, alias: 'api', name: 'From the API' });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data.account_id).toBe(accountId);

    const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const withoutToken = await t.app.inject({
      method: 'POST',
      url: '/api/mailing-lists',
      headers: { cookie },
      payload: { accountId, alias: 'cookie', name: 'Cookie only' },
    });
    expect(withoutToken.statusCode).toBe(403);
    expect(withoutToken.json().code).toBe('CSRF');
    const names = await t.platform.db
      .selectFrom('mailing_lists')
      .select('name')
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(names.map((row) => row.name)).toEqual(['From the API']);
  });

  it('refuses a revoked key at once, and a key of a disabled user', async () => {
    const { user, agent } = await signedIn();
    const { key, data } = await createKey(agent, ['lists:read']);
    expect((await withKey(key, 'GET', '/api/mailing-lists')).statusCode).toBe(200);
    const revoked = await agent.post(`/api/settings/api-keys/${data.id}/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const after = await withKey(key, 'GET', '/api/mailing-lists');
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'API_KEY_INVALID', message: API_KEY_MESSAGES.invalid });
    expect((await agent.get('/api/settings/api-keys')).json().data[0].revoked_at).not.toBeNull();

    const second = await createKey(agent, ['lists:read'], 'Second');
    expect((await withKey(second.key, 'GET', '/api/mailing-lists')).statusCode).toBe(200);
    await t.platform.db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', user.id).execute();
    expect((await withKey(second.key, 'GET', '/api/mailing-lists')).statusCode).toBe(401);
  });

  it('refuses keys that were never made, whatever they look like', async () => {
    for (const key of [`sw_${'a'.repeat(40)}`, 'sw_short', `sw_${'b'.repeat(39)}!`]) {
      const response = await withKey(key, 'GET', '/api/mailing-lists');
      expect(response.statusCode).toBe(401);
      expect(response.body).not.toContain('"data"');
    }
  });

  it("never reaches another user's data: another user's list is a 404", async () => {
    const owner = await signedIn();
    const list = (
      await owner.agent.post('/api/mailing-lists', { accountId: owner.accountId, alias: 'mine', name: 'Mine' })
    ).json().data;
    await owner.agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'secret@example.com' });
    const intruder = await signedIn();
    const { key } = await createKey(intruder.agent, ['lists:read', 'lists:write', 'reports:read', 'send']);
    for (const [method, url, body] of [
      ['GET', `/api/mailing-lists/get-list-info/${list.id}`, undefined],
      ['GET', `/api/mailing-lists/${list.id}/members`, undefined],
      ['PUT', `/api/mailing-lists/${list.id}/members`, { email: 'new@example.com' }],
      ['POST', `/api/mailing-lists/${list.id}/members/remove`, { email: 'secret@example.com' }],
      ['POST', `/api/mailing-lists/${list.id}/members/bulk`, { members: [{ email: 'x@example.com' }] }],
    ] as const) {
      const response = await withKey(key, method, url, body);
      expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
      expect(response.body).not.toContain('secret@example.com');
    }
    const intruderLists = await withKey(key, 'GET', '/api/mailing-lists');
    expect(intruderLists.json().data).toEqual([]);
    const members = await t.platform.db
      .selectFrom('list_members')
      .select('email')
      .where('list_id', '=', list.id)
      .execute();
    expect(members.map((row) => row.email)).toEqual(['secret@example.com']);
  });

  it('limits each key on its own, and records its last use', async () => {
    const { agent } = await signedIn();
    const busy = await createKey(agent, ['lists:read'], 'Busy');
    const quiet = await createKey(agent, ['lists:read'], 'Quiet');
    const statuses: number[] = [];
    for (let index = 0; index <= RATE_LIMIT; index += 1) {
      statuses.push((await withKey(busy.key, 'GET', '/api/mailing-lists')).statusCode);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(RATE_LIMIT);
    expect(statuses.at(-1)).toBe(429);
    // The other key of the same user is not held back by the first one's requests.
    expect((await withKey(quiet.key, 'GET', '/api/mailing-lists')).statusCode).toBe(200);
    const listed = (await agent.get('/api/settings/api-keys')).json().data as { name: string; last_used_at: string }[];
    expect(listed.find((key) => key.name === 'Busy')?.last_used_at).not.toBeNull();
  });

  it("shows each route's scope in the OpenAPI document", async () => {
    const document = (await t.app.inject({ url: '/api/docs' })).json();
    expect(document.paths['/api/mailing-lists'].get['x-api-key-scope']).toBe('lists:read');
    expect(document.paths['/api/mailing-lists'].post['x-api-key-scope']).toBe('lists:write');
    expect(document.paths['/api/email/transactional'].post['x-api-key-scope']).toBe('send');
    expect(document.paths['/api/history/sends/{id}/figures'].get['x-api-key-scope']).toBe('reports:read');
    expect(document.paths['/api/settings/api-keys'].get['x-api-key-scope']).toBeUndefined();
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
