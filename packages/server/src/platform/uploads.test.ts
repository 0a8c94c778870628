import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { CAMPAIGN_MESSAGES, LIST_MESSAGES, UPLOAD_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInWithSmtp, startTestApp, type TAgent, type TTestApp } from '../../test/app';

/**
 * Every upload route (a list import's file, rows posted from the browser, the verification
 * tool, drip recipients) against bodies as clients really send them wrong: compressed,
 * cut short, declared or grown past the limit. Over real sockets: `app.inject` would tidy
 * up what matters here (lengths, half-closed connections).
 */

let t: TTestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp({ LIST_IMPORT_MAX_MB: '4', LOGIN_LIMIT_PER_IP: '1000' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

type TExchange = {
  /** The response as text, once the server has answered. */
  answer: Promise<string>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  socket: net.Socket;
  write: (data: string | Buffer) => Promise<void>;
};

/** One request on a raw socket: the head is written at once; the body as the test writes it. */
const open = async (
  agent: TAgent,
  path: string,
  headers: Record<string, string | number>,
  method = 'POST',
): Promise<TExchange> => {
  const token = (await agent.get('/api/csrf')).json().token as string;
  const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let text = '';
  let onAnswer: (value: string) => void = () => {};
  const answer = new Promise<string>((resolve) => {
    onAnswer = resolve;
  });
  socket.on('data', (chunk) => {
    text += chunk.toString();
    const head = text.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
    if (head >= 0 && text.length >= head + 4 + length) onAnswer(text);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  const lines = Object.entries({ host: '127.0.0.1', cookie, 'x-csrf-token': token, ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed || !socket.writable) return resolve();
      socket.write(data, () => resolve());
    });
  return { answer, closed, socket, write };
};

const statusOf = (answer: string) => Number(answer.split(' ')[1]);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

const signedInWithList = async () => {
  const { list, ...signedIn } = await signedInWithSmtp(t, { list: true });
  return { ...signedIn, list: list! };
};

const BOUNDARY = 'sendwell-upload-test';
const form = (csv: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n` +
  `${JSON.stringify({ hasHeaders: true, emailColumn: 0 })}\r\n` +
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="people.csv"\r\nContent-Type: text/csv\r\n\r\n` +
  `${csv}\r\n--${BOUNDARY}--\r\n`;
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/** What an upload may have left behind for this user: nothing, in every case below. */
const storedFor = async (userId: number, listId: number) => ({
  imports: (await t.platform.db.selectFrom('list_imports').select('id').where('list_id', '=', listId).execute()).length,
  members: (await t.platform.db.selectFrom('list_members').select('id').where('list_id', '=', listId).execute()).length,
  verifications: (
    await t.platform.db.selectFrom('verification_jobs').select('id').where('user_id', '=', userId).execute()
  ).length,
});
const NOTHING = { imports: 0, members: 0, verifications: 0 };

describe('an upload sent compressed (Content-Encoding: gzip)', () => {
  it('is a 400 saying so, on every upload route, and nothing is stored', async () => {
    const { user, agent, list, accountId } = await signedInWithList();
    const bodies: [string, string, Buffer, string?][] = [
      [`/api/mailing-lists/${list.id}/imports`, MULTIPART, Buffer.from(form('email\nann@example.com\n'))],
      [
        '/api/mailing-lists/ajax/post-csv',
        'application/json',
        Buffer.from(
          JSON.stringify({ data: [{ email: 'ann@example.com' }], account: accountId, address: list.address }),
        ),
      ],
      ['/api/tools/verify-emails/text/store', 'application/json', Buffer.from(JSON.stringify({ emails: 'a@b.com' }))],
      [
        '/api/tools/verify-emails/file/store',
        'application/json',
        Buffer.from(JSON.stringify({ csvFile: [['a@b.com']], emailColumn: 0 })),
      ],
      [
        '/api/campaigns/save-campaign/2',
        'application/json',
        Buffer.from(JSON.stringify({ temporary: 'abcdefgh', recipients: [{ email: 'a@b.com' }] })),
        'PUT',
      ],
    ];
    for (const [path, type, plain, method] of bodies) {
      const body = gzipSync(plain);
      const exchange = await open(
        agent,
        path,
        { 'content-type': type, 'content-length': body.length, 'content-encoding': 'gzip' },
        method,
      );
      await exchange.write(body);
      const answer = await exchange.answer;
      expect(statusOf(answer), path).toBe(400);
      expect(bodyOf(answer), path).toMatchObject({ status: false, message: UPLOAD_MESSAGES.encoded });
      exchange.socket.destroy();
    }
    expect(await storedFor(user.id, list.id)).toEqual(NOTHING);
  });
});

describe('an upload cut short', () => {
  it('without its closing boundary, or as JSON cut off, is a 400 saying so, and nothing is stored', async () => {
    const { user, agent, list } = await signedInWithList();
    const whole = form('email\nann@example.com\nbob@example.com\n');
    const cut = whole.slice(0, whole.length - 40);
    const multipart = await open(agent, `/api/mailing-lists/${list.id}/imports`, {
      'content-type': MULTIPART,
      'content-length': Buffer.byteLength(cut),
    });
    await multipart.write(cut);
    const answer = await multipart.answer;
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer)).toMatchObject({ message: UPLOAD_MESSAGES.cutShort, code: 'UPLOAD_CUT_SHORT' });

    const json = JSON.stringify({ emails: 'ann@example.com\nbob@example.com' }).slice(0, 25);
    const text = await open(agent, '/api/tools/verify-emails/text/store', {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    await text.write(json);
    const textAnswer = await text.answer;
    expect(statusOf(textAnswer)).toBe(400);
    expect(bodyOf(textAnswer)).toMatchObject({ message: UPLOAD_MESSAGES.notJson });
    expect(await storedFor(user.id, list.id)).toEqual(NOTHING);
  });

  it('by a client that stops sending before its declared length is a 400 saying so', async () => {
    const { user, agent, list } = await signedInWithList();
    const whole = form('email\nann@example.com\n');
    const exchange = await open(agent, `/api/mailing-lists/${list.id}/imports`, {
      'content-type': MULTIPART,
      'content-length': Buffer.byteLength(whole) + 1000,
    });
    await exchange.write(whole);
    exchange.socket.end();
    const answer = await exchange.answer;
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer)).toMatchObject({ status: false, message: UPLOAD_MESSAGES.cutShort });
    expect(await storedFor(user.id, list.id)).toEqual(NOTHING);
  });
});

describe('an upload over the limit', () => {
  it('is refused from its Content-Length before its body is sent, and the connection is closed', async () => {
    const { user, agent, list } = await signedInWithList();
    for (const [path, type, message] of [
      [`/api/mailing-lists/${list.id}/imports`, MULTIPART, LIST_MESSAGES.csvTooLarge],
      ['/api/tools/verify-emails/text/store', 'application/json', UPLOAD_MESSAGES.tooLarge],
    ] as const) {
      // 300 MB declared; only the first bytes are ever sent.
      const exchange = await open(agent, path, { 'content-type': type, 'content-length': 300 * 1024 * 1024 });
      await exchange.write(path.includes('imports') ? form('email\n').slice(0, 200) : '{"emails":"');
      const answer = await exchange.answer;
      expect(statusOf(answer), path).toBe(413);
      expect(bodyOf(answer), path).toMatchObject({ status: false, message });
      expect(answer.toLowerCase()).toContain('connection: close');
      await exchange.closed;
    }
    expect(await storedFor(user.id, list.id)).toEqual(NOTHING);
  });

  it('is refused once it grows past the limit, without the rest being read, and nothing is kept', async () => {
    const { user, agent, list } = await signedInWithList();
    // No length declared (chunked), as a streaming client sends: 5 MB of file against a 4 MB limit.
    const exchange = await open(agent, `/api/mailing-lists/${list.id}/imports`, {
      'content-type': MULTIPART,
      'transfer-encoding': 'chunked',
    });
    const chunk = (data: string | Buffer) =>
      exchange.write(
        Buffer.concat([
          Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`),
          Buffer.from(data),
          Buffer.from('\r\n'),
        ]),
      );
    await chunk(form('').slice(0, form('').lastIndexOf('\r\n--')));
    const row = Buffer.from(`${'x'.repeat(60)}@example.com\n`);
    const block = Buffer.concat(Array.from({ length: Math.ceil((256 * 1024) / row.length) }, () => row));
    let sent = 0;
    let answered = false;
    void exchange.answer.then(() => {
      answered = true;
    });
    while (!answered && sent < 5 * 1024 * 1024) {
      await Promise.race([chunk(block), exchange.answer]);
      sent += block.length;
    }
    // The body never ends (no last chunk is sent): the answer cannot have waited for it.
    const answer = await exchange.answer;
    expect(statusOf(answer)).toBe(413);
    expect(bodyOf(answer)).toMatchObject({ message: LIST_MESSAGES.csvTooLarge });
    await exchange.closed;
    // The chunks stored while it arrived went with it.
    await expect.poll(async () => storedFor(user.id, list.id), { timeout: 10_000 }).toEqual(NOTHING);
  });
});

describe('drip recipients (spec: a CSV of at most 1,500 KB)', () => {
  it('refuses rows of a larger file on the server too, with the spec’s message, and keeps none of them', async () => {
    const { agent, accountId } = await signedInWithList();
    const start = await agent.put('/api/campaigns/save-campaign/1', {
      accountId,
      title: 'Big file',
      senderName: 'Acme',
    });
    const temporary = start.json().temporaryKey as string;
    // 20,000 rows of ~110 bytes: 2.2 MB of CSV.
    const rows = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        email: `person${index}@example.com`,
        name: `Person ${index} ${'n'.repeat(60)}`,
        variables: { company: 'Acme Corporation' },
      }));
    const tooLarge = await agent.put('/api/campaigns/save-campaign/2', { temporary, recipients: rows(20_000) });
    expect(tooLarge.statusCode).toBe(422);
    expect(tooLarge.json().errors.recipients).toEqual([CAMPAIGN_MESSAGES.csvTooLarge]);
    const campaign = await t.platform.db
      .selectFrom('campaigns')
      .select('id')
      .where('temporary_key', '=', temporary)
      .executeTakeFirstOrThrow();
    const kept = await t.platform.db
      .selectFrom('campaign_recipients')
      .select('id')
      .where('campaign_id', '=', campaign.id)
      .execute();
    expect(kept).toEqual([]);
    // A file under the limit (1.3 MB) is taken whole.
    const fits = await agent.put('/api/campaigns/save-campaign/2', { temporary, recipients: rows(12_000) });
    expect(fits.statusCode, fits.body).toBe(200);
    expect(fits.json().count).toBe(12_000);
  });
});
