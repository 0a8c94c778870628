import nodemailer from 'nodemailer';

export type TSystemMail = { to: string; subject: string; text: string; html?: string; replyTo?: string };

export type TMailer = { send: (mail: TSystemMail) => Promise<void>; isConfigured: boolean };

/**
 * Mail Sendwell itself sends (password reset links), not users' campaigns. With no
 * SMTP_URL it writes the message to the log, so a first local run still shows the link.
 */
export const createMailer = ({
  smtpUrl,
  from,
  log,
}: {
  smtpUrl: string | undefined;
  from: string;
  log: { info: (object: object, message: string) => void };
}): TMailer => {
  if (!smtpUrl) {
    return {
      isConfigured: false,
      send: async (mail) => {
        log.info(
          { to: mail.to, replyTo: mail.replyTo, subject: mail.subject, text: mail.text },
          'system mail (SMTP_URL not set, not sent)',
        );
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
