import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './cluster';

/** A real SMTP server on loopback that keeps what it receives, parsed. */
export const startSmtpSink = async () => {
  const messages: ParsedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          for (const wake of waiters.splice(0)) wake();
          callback();
        })
        .catch(callback);
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** Resolves with the first message to `to`, waiting for it up to `timeoutMs`. */
    waitFor: async (to: string, timeoutMs = 5_000): Promise<ParsedMail> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((mail) => mail.to && JSON.stringify(mail.to).includes(to));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
