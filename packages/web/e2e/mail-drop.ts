import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../../server/test/cluster';

/**
 * Sendwell's own mail in the journeys (confirmation links, reset links, ticket answers): the
 * server processes send it to this SMTP server on loopback (`SMTP_URL`), which writes each
 * message to a file in `dir` as JSON, so a journey, in another process, can read the link a
 * person would click (`waitForMail` in support.ts).
 */
export const startMailDrop = async (dir: string) => {
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      simpleParser(stream)
        .then((mail) => {
          count += 1;
          const message = {
            to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
          };
          fs.writeFileSync(path.join(dir, `${Date.now()}-${count}.json`), JSON.stringify(message));
          callback();
        })
        .catch(callback);
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
