import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/cluster';
import { UNREACHABLE_HOST_MESSAGE } from '../platform/network-guard';
import { createSmtpTransport, type TSmtpSettings } from './smtp';

const received: { from: string; to: string[]; raw: string }[] = [];
let authServer: SMTPServer;
let authPort: number;
let hangServer: net.Server;
let hangPort: number;

beforeAll(async () => {
  // A real SMTP server that wants a login and offers STARTTLS with its own self-signed certificate.
  authServer = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === 'mailer' && auth.password === 'right-password'
        ? callback(null, { user: auth.username })
        : callback(new Error('Invalid username or password')),
    onData: (stream, session, callback) => {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
        });
        callback();
      });
    },
  });
  authPort = await freePort();
  await new Promise<void>((resolve) => authServer.listen(authPort, '127.0.0.1', resolve));
  // A server that accepts the connection and never says a word.
  hangServer = net.createServer(() => {});
  hangPort = await freePort();
  await new Promise<void>((resolve) => hangServer.listen(hangPort, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => authServer.close(() => resolve()));
  await new Promise<void>((resolve) => hangServer.close(() => resolve()));
});

const settings = (overrides: Partial<TSmtpSettings> = {}): TSmtpSettings => ({
  host: '127.0.0.1',
  port: authPort,
  encryption: 'tls',
  username: 'mailer',
  password: 'right-password',
  ...overrides,
});
const options = { allowLoopback: true, allowSelfSigned: true, timeoutMs: 1_000 };

describe('the SMTP transport', () => {
  it('authenticates over STARTTLS and sends', async () => {
    const transport = await createSmtpTransport(settings(), options);
    await transport.verify();
    const [result] = await transport.send([
      { from: 'sender@example.com', to: 'reader@example.com', subject: 'Hello', text: 'Body' },
    ]);
    transport.close();
    expect(result).toMatchObject({ to: 'reader@example.com', accepted: true });
    expect(received.at(-1)).toMatchObject({ from: 'sender@example.com', to: ['reader@example.com'] });
    expect(received.at(-1)!.raw).toContain('Subject: Hello');
  });

  it('says so when the password is wrong', async () => {
    const transport = await createSmtpTransport(settings({ password: 'wrong' }), options);
    await expect(transport.verify()).rejects.toMatchObject({
      code: 'AUTH',
      message: 'The SMTP server refused the username or password.',
    });
  });

  it('refuses to send credentials in clear when TLS is required but the server has none', async () => {
    const plain = new SMTPServer({ logger: false, disabledCommands: ['STARTTLS'], authOptional: true });
    const port = await freePort();
    await new Promise<void>((resolve) => plain.listen(port, '127.0.0.1', resolve));
    try {
      const transport = await createSmtpTransport(settings({ port }), options);
      await expect(transport.verify()).rejects.toMatchObject({ code: 'TLS' });
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('gives up on a server that never answers, with a clear message', async () => {
    const transport = await createSmtpTransport(settings({ port: hangPort }), options);
    // The configured 1 s timeout ended the wait (the message says so); the test's own timeout bounds a hang.
    await expect(transport.verify()).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: `The SMTP server at 127.0.0.1:${hangPort} did not answer within 1 second.`,
    });
  });

  it('refuses loopback unless the operator allows it, the same whether the port is open or closed (R14)', async () => {
    const closedPort = await freePort();
    for (const port of [authPort, closedPort]) {
      await expect(createSmtpTransport(settings({ port }), { allowLoopback: false })).rejects.toMatchObject({
        message: UNREACHABLE_HOST_MESSAGE,
      });
    }
  });
});

/**
 * An SMTP peer for the answers real servers give mid-send: how it ends the message
 * (`450`, `550`, or dropping the connection once the data has arrived) or whether it cuts
 * the line at RCPT already. Counts the messages it received whole.
 */
const startScriptedPeer = async (ending: 'drop-after-data' | '450' | '550' | 'drop-at-rcpt', reply?: string) => {
  let whole = 0;
  // smtp-server keeps its connections here; cutting one's socket is how a peer drops the line.
  const cut = (sessionId: string) => {
    const connections = (server as unknown as { connections: Set<{ id: string; _socket: net.Socket }> }).connections;
    for (const connection of connections) if (connection.id === sessionId) connection._socket.destroy();
  };
  const server: SMTPServer = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onRcptTo: (_address, session, callback) => {
      if (ending === 'drop-at-rcpt') return cut(session.id);
      callback();
    },
    onData: (stream, session, callback) => {
      stream.resume();
      stream.on('end', () => {
        whole += 1;
        if (ending === 'drop-after-data') return cut(session.id);
        const error = new Error(reply ?? (ending === '450' ? 'Try again later' : 'No such user')) as Error & {
          responseCode: number;
        };
        error.responseCode = Number(ending);
        callback(error);
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    whole: () => whole,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

describe('what a failed send means for its recipient (R3, R7)', () => {
  const message = { from: 'Sender <sender@example.com>', to: 'reader@example.com', subject: 'Hi', text: 'Hello' };
  const sendThrough = async (ending: Parameters<typeof startScriptedPeer>[0], reply?: string) => {
    const peer = await startScriptedPeer(ending, reply);
    try {
      const transport = await createSmtpTransport(settings({ port: peer.port }), options);
      const [result] = await transport.send([message]);
      transport.close();
      return { result, whole: peer.whole() };
    } finally {
      await peer.close();
    }
  };

  it('calls a connection lost after the whole message unknown, not failed', async () => {
    const { result, whole } = await sendThrough('drop-after-data');
    expect(whole).toBe(1);
    expect(result).toMatchObject({ accepted: false, kind: 'unknown' });
  });

  it('calls a connection lost before the message temporary: nothing can have been accepted', async () => {
    const { result, whole } = await sendThrough('drop-at-rcpt');
    expect(whole).toBe(0);
    expect(result).toMatchObject({ accepted: false, kind: 'temporary' });
  });

  it('calls a 4xx temporary and a 5xx permanent', async () => {
    expect((await sendThrough('450')).result).toMatchObject({ accepted: false, kind: 'temporary' });
    expect((await sendThrough('550')).result).toMatchObject({ accepted: false, kind: 'permanent' });
  });

  it("reads a server's refusal as a refusal whatever its words: an address holding 'tls' or 'ssl' is no failed secure connection", async () => {
    // The test mailbox's answer to a spam test whose address was random: t-…tls…@ made the
    // words match the TLS failure's, and the refusal read "The secure connection … failed".
    const reply = '5.1.1 <t-0tls0ssl0starttls000@spamtest.sendwell.test>: no such test mailbox';
    const { result } = await sendThrough('550', reply);
    expect(result).toMatchObject({ accepted: false, kind: 'permanent' });
    const { error } = result as { error: string };
    expect(error).toMatch(/^The SMTP server refused the message: .*550 5\.1\.1 <t-0tls0ssl0starttls000@/);
    expect(error).not.toMatch(/secure connection/);
  });
});

describe('pooled sending', () => {
  /** `count` short messages to `{prefix}{n}@example.com`. */
  const messagesTo = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => ({
      from: 'Sender <sender@example.com>',
      to: `${prefix}${index}@example.com`,
      subject: `Message ${index}`,
      text: 'Body',
    }));

  it('sends a batch over several connections and keeps the order of the results', async () => {
    const before = received.length;
    const transport = await createSmtpTransport(settings(), { ...options, connections: 4 });
    const batch = messagesTo('reader', 24);
    const results = await transport.send(batch);
    transport.close();
    expect(results.map((result) => result?.to)).toEqual(batch.map((item) => item.to));
    expect(results.every((result) => result?.accepted)).toBe(true);
    const arrived = received.slice(before).flatMap((item) => item.to);
    expect(arrived.sort()).toEqual(batch.map((item) => item.to).sort());
  });

  it('starts no message at or after the deadline it is given, and reports none for them', async () => {
    const before = received.length;
    const transport = await createSmtpTransport(settings(), { ...options, connections: 2 });
    const batch = messagesTo('late', 6);
    const reported: number[] = [];
    // The deadline passes while the first two messages (one per connection) are on their way.
    const startBefore = Date.now() + 5;
    const results = await transport.send(
      batch,
      async (index) => {
        reported.push(index);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      { startBefore },
    );
    transport.close();
    const started = results.filter((result) => result !== undefined);
    expect(started.length).toBeGreaterThan(0);
    expect(started.length).toBeLessThan(batch.length);
    expect(reported.sort()).toEqual(results.flatMap((result, index) => (result ? [index] : [])));
    expect(received.length - before).toBe(started.length);
  });
});
