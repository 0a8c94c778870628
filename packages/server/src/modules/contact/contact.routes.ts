import { contactApi } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import { moduleRoutes, perIpLimit } from '../../platform/routes';

/** The operator's address: SUPPORT_EMAIL, or the address Sendwell sends system mail from. */
const supportAddress = (platform: TPlatform) =>
  platform.config.supportEmail ?? platform.config.mailFrom.match(/<([^>]+)>/)?.[1] ?? platform.config.mailFrom;

export const contactRoutes = moduleRoutes(['contact'], (serve, platform) => {
  // Visitors ask before they have an account, so this is public and limited per address.
  serve(contactApi.contactUs, { config: { public: true, ...perIpLimit('contact-us', 5, 3600) } }, async (request) => {
    const { name, email, subject, message } = request.body;
    await platform.mailer.send({
      to: supportAddress(platform),
      replyTo: email,
      subject: `[Contact] ${subject}`,
      text: `${name} <${email}> wrote through the contact form${request.session ? ` (signed in as user ${request.session.userId})` : ''}:\n\n${message}\n`,
    });
    return { status: true, message: 'Thank you. We have your message and will answer by email.' };
  });
});
