import nodemailer from 'nodemailer';

export type TSystemMail = { to: string; subject: string; text: string; html?: string; replyTo?: string };

export type TMailer = { send: (mail: TSystemMail) => Promise<void>; isConfigured: boolean };

/**
 * Mail Sendwell itself sends (password reset links), not users' campaigns. With no SMTP_URL
 * the message goes to the log instead, so a first local run still shows the reset link, but
 * its text only on a local run (`isLocalRun`: embedded PostgreSQL, whose operator holds the
 * data directory and with it every account anyway). A server on an external database is a
 * deployment whose logs travel (collectors, tickets), and the text holds a live reset link
 * (R29): there it is withheld and the log line says to set SMTP_URL.
 */
export const createMailer = ({
  smtpUrl,
  from,
  log,
  isLocalRun,
}: {
  smtpUrl: string | undefined;
  from: string;
  log: { info: (object: object, message: string) => void; warn: (object: object, message: string) => void };
  isLocalRun: boolean;
}): TMailer => {
  if (!smtpUrl) {
    return {
      isConfigured: false,
      send: async (mail) => {
        if (isLocalRun) {
          log.info(
            { to: mail.to, replyTo: mail.replyTo, subject: mail.subject, text: mail.text },
            'system mail (SMTP_URL not set, not sent)',
          );
        } else {
          log.warn(
            { to: mail.to, subject: mail.subject },
            'system mail not sent and its text withheld from the log: set SMTP_URL',
          );
        }
      },
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    isConfigured: true,
    send: async (mail) => {
      await transport.sendMail({ from, ...mail });
    },
  };
};
