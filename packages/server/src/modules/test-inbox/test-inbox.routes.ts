import { testInboxApi, withoutOpenPixel } from '@sendwell/contracts';
import { notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { publicUrl } from '../../platform/public-url';
import { moduleRoutes } from '../../platform/routes';
import { clearInbox, findMessage, findRaw, selectMessages } from './test-inbox.service';

/**
 * A received message is shown like a mail client shows it, only inside a sandboxed frame:
 * no script, no form, no same-origin; images from the web and from Sendwell itself. Its open
 * pixel is taken out first (`withoutOpenPixel`): the user looking at what they sent is not
 * its recipient opening it, and must not count as an open (R33).
 */
const messageHtmlPolicy = (ownOrigin: string) =>
  `sandbox; default-src 'none'; img-src data: https: ${ownOrigin}; style-src 'unsafe-inline'; font-src data:`;

/** The test inbox page's calls (its analysis of a message is the spam test's: `spam-test.routes.ts`). */
export const testInboxRoutes = moduleRoutes(['test inbox'], (serve, platform) => {
  serve(testInboxApi.messages, async (request) => {
    const page = await paginate(selectMessages(platform.db, request.session!.userId), request.query, {
      sortColumns: { created_at: 'created_at', subject: 'subject' },
      searchColumns: ['subject', 'mail_from'],
      tieBreaker: 'id',
    });
    return { data: page.data.map((row) => ({ ...row, created_at: row.created_at.toISOString() })), meta: page.meta };
  });

  serve(testInboxApi.message, async (request) => {
    const message = await findMessage(platform, request.session!.userId, request.params.id);
    return {
      data: {
        id: message.id,
        mail_from: message.mail_from,
        rcpt_to: message.rcpt_to,
        subject: message.subject,
        size_bytes: message.size_bytes,
        created_at: message.created_at.toISOString(),
        text_body: message.text_body,
        has_html: message.html_body !== null,
      },
    };
  });

  serve(testInboxApi.messageHtml, async (request, reply) => {
    const message = await findMessage(platform, request.session!.userId, request.params.id);
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', messageHtmlPolicy(new URL(publicUrl(platform)).origin))
      .header('x-frame-options', 'SAMEORIGIN');
    return withoutOpenPixel(message.html_body ?? '');
  });

  serve(testInboxApi.raw, async (request, reply) => {
    const raw = await findRaw(platform, request.session!.userId, request.params.id);
    if (!raw) throw notFound('This message does not exist, or was kept without its raw form.');
    return reply
      .header('content-type', 'message/rfc822')
      .header('content-disposition', `attachment; filename="test-inbox-${request.params.id}.eml"`)
      .send(raw);
  });

  serve(testInboxApi.clear, async (request) => {
    await clearInbox(platform, request.session!.userId);
    return { status: true, message: 'The test inbox is empty.' };
  });
});
