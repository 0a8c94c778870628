import net from 'node:net';

/**
 * One SMTP conversation with a domain's mail server, to ask about mailboxes without sending
 * anything: EHLO, MAIL FROM, then RCPT TO per address, and QUIT (never DATA). Replies are
 * read as SMTP defines them (a three-digit code, `-` on every line but the last).
 */

export type TReply = { code: number; text: string };

export class ProbeError extends Error {
  override readonly name = 'ProbeError';
  constructor(
    readonly kind: 'connect' | 'timeout' | 'dropped' | 'refused',
    message: string,
  ) {
    super(message);
  }
}

export type TProbeSession = {
  rcpt: (address: string) => Promise<TReply>;
  /** RSET between addresses is not needed: a refused RCPT leaves the transaction open. */
  quit: () => Promise<void>;
};

export const openProbe = async ({
  host,
  port,
  heloName,
  mailFrom,
  stepTimeoutMs,
}: {
  host: string;
  port: number;
  heloName: string;
  mailFrom: string;
  stepTimeoutMs: number;
}): Promise<TProbeSession> => {
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  let buffer = '';
  let lines: string[] = [];
  let waiting: { resolve: (reply: TReply) => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | null =
    null;
  let failure: ProbeError | null = null;

  const fail = (error: ProbeError) => {
    failure ??= error;
    if (waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(failure);
      waiting = null;
    }
  };
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1');
    for (;;) {
      const end = buffer.indexOf('\n');
      if (end < 0) break;
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      lines.push(line);
      if (/^\d{3}(?: |$)/.test(line) && waiting) {
        const reply = {
          code: Number(line.slice(0, 3)),
          text: lines
            .map((item) => item.slice(4))
            .join(' ')
            .trim(),
        };
        lines = [];
        clearTimeout(waiting.timer);
        const { resolve } = waiting;
        waiting = null;
        resolve(reply);
      }
    }
  });
  socket.on('error', (error: NodeJS.ErrnoException) =>
    fail(
      new ProbeError(
        error.code === 'ECONNREFUSED' ? 'refused' : 'connect',
        `${host}:${port}: ${error.code ?? error.message}`,
      ),
    ),
  );
  socket.on('close', () => fail(new ProbeError('dropped', `${host} closed the connection`)));

  const nextReply = () =>
    new Promise<TReply>((resolve, reject) => {
      if (failure) return reject(failure);
      const timer = setTimeout(() => {
        fail(new ProbeError('timeout', `${host} did not answer within ${stepTimeoutMs} ms`));
        socket.destroy();
      }, stepTimeoutMs);
      waiting = { resolve, reject, timer };
    });
  const command = (line: string) => {
    const reply = nextReply();
    socket.write(`${line}\r\n`);
    return reply;
  };
  const expect2xx = (reply: TReply, what: string) => {
    if (reply.code >= 200 && reply.code < 300) return;
    socket.destroy();
    throw new ProbeError(reply.code >= 500 ? 'refused' : 'dropped', `${what}: ${reply.code} ${reply.text}`);
  };

  try {
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ProbeError('timeout', `${host}:${port} did not accept a connection within ${stepTimeoutMs} ms`));
      }, stepTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new ProbeError(error.code === 'ECONNREFUSED' ? 'refused' : 'connect', `${host}:${port}: ${error.code}`));
      });
    });
    const greeting = nextReply();
    // Settled even when the connection fails first (then `connected` says why).
    greeting.catch(() => {});
    await connected;
    expect2xx(await greeting, 'greeting');
    expect2xx(await command(`EHLO ${heloName}`), 'EHLO');
    expect2xx(await command(`MAIL FROM:<${mailFrom}>`), 'MAIL FROM');
  } catch (error) {
    socket.destroy();
    throw error;
  }
  return {
    rcpt: (address) => command(`RCPT TO:<${address}>`),
    quit: async () => {
      // QUIT is a courtesy: a server that has closed or refuses it has let go of the connection too.
      await command('QUIT').catch(() => {});
      // The server closes its end after 221: waiting for that (a step's timeout at most)
      // means the connection is gone on its side too before this slot opens another (R36).
      if (!socket.destroyed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, stepTimeoutMs);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          socket.end();
        });
      }
      socket.destroy();
    },
  };
};
