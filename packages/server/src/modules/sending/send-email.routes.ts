import {
  SEND_MESSAGES,
  ZAccountListsResponse,
  ZDuplicatesRequest,
  ZDuplicatesResponse,
  ZSaveTemplateRequest,
  ZSendEmailContent,
  ZSendEmailRequest,
  ZSendEmailResponse,
  ZSendProgress,
  ZTemplate,
} from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import {
  accountLists,
  deleteTemplate,
  findDuplicates,
  listTemplates,
  saveTemplate,
  sendEmail,
  sendEmailContent,
  sendProgress,
} from './email.service';
import { cancelSend, pauseSend, resendUnknown, resumeSend } from './sending.service';

const ZId = z.object({ id: z.coerce.number().int().positive() });
const ZStatus = z.object({ status: z.literal(true), message: z.string() });
const tags = ['sending'];

/** Sending is a costly act: generous for a person, a wall for a script. */
const sendLimit = { rateLimit: { name: 'email-send', limit: 30, windowSeconds: 600, per: 'user' as const } };
const editLimit = { rateLimit: { name: 'email-edit', limit: 300, windowSeconds: 600, per: 'user' as const } };

/** The Send Email page's calls (spec §7 sending) and the template library. */
export const sendEmailRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const userOf = (request: { session?: { userId: number } | null }) => request.session!.userId;

  app.get(
    '/email/send-email-content',
    {
      schema: {
        tags,
        querystring: z.object({ account: z.coerce.number().int().positive().optional() }),
        response: { 200: ZSendEmailContent },
      },
    },
    async (request) => ({
      status: true as const,
      data: await sendEmailContent(platform, userOf(request), request.query.account),
    }),
  );

  app.get(
    '/email/get-mailing-lists/:accountId',
    {
      schema: {
        tags,
        params: z.object({ accountId: z.coerce.number().int().positive() }),
        response: { 200: ZAccountListsResponse },
      },
    },
    async (request) => accountLists(platform, userOf(request), request.params.accountId),
  );

  app.post(
    '/email/get-duplicates',
    { config: editLimit, schema: { tags, body: ZDuplicatesRequest, response: { 200: ZDuplicatesResponse } } },
    async (request) => findDuplicates(platform, userOf(request), request.body.mailingLists),
  );

  app.post(
    '/email/send',
    { config: sendLimit, schema: { tags, body: ZSendEmailRequest, response: { 200: ZSendEmailResponse } } },
    async (request) => sendEmail(platform, userOf(request), request.body),
  );

  app.get(
    '/email/sends/:id',
    { schema: { tags, params: ZId, response: { 200: z.object({ data: ZSendProgress }) } } },
    async (request) => ({ data: await sendProgress(platform, userOf(request), request.params.id) }),
  );

  const stateRoute = (action: 'pause' | 'resume' | 'cancel', change: typeof pauseSend, message: string) =>
    app.post(
      `/email/sends/:id/${action}`,
      { config: editLimit, schema: { tags, params: ZId, response: { 200: ZStatus } } },
      async (request) => {
        await change(platform, userOf(request), request.params.id);
        return { status: true as const, message };
      },
    );
  stateRoute('pause', pauseSend, 'The send is paused. Nothing more goes out until you resume it.');
  stateRoute('resume', resumeSend, 'The send goes on.');
  stateRoute('cancel', cancelSend, 'The send is cancelled. Nothing more goes out.');

  // Recipients whose message may have left (its answer never came) are not resent on
  // their own (R3); the user may choose to, knowing some may get it twice.
  app.post(
    '/email/sends/:id/resend-unknown',
    { config: editLimit, schema: { tags, params: ZId, response: { 200: ZStatus } } },
    async (request) => {
      const count = await resendUnknown(platform, userOf(request), request.params.id);
      return {
        status: true as const,
        message:
          count === 0
            ? 'No recipient of this send is unknown.'
            : `${count.toLocaleString('en-US')} recipient${count === 1 ? '' : 's'} with an unknown outcome ${count === 1 ? 'is' : 'are'} being sent the email again.`,
      };
    },
  );

  app.get(
    '/templates',
    { schema: { tags, response: { 200: z.object({ data: z.array(ZTemplate) }) } } },
    async (request) => ({ data: await listTemplates(platform.db, userOf(request)) }),
  );

  app.post(
    '/templates',
    {
      config: editLimit,
      schema: { tags, body: ZSaveTemplateRequest, response: { 200: ZStatus.extend({ data: ZTemplate }) } },
    },
    async (request) => ({
      status: true as const,
      message: SEND_MESSAGES.templateSaved,
      data: await saveTemplate(platform, userOf(request), request.body),
    }),
  );

  app.delete(
    '/templates/:id',
    { config: editLimit, schema: { tags, params: ZId, response: { 200: ZStatus } } },
    async (request) => {
      await deleteTemplate(platform, userOf(request), request.params.id);
      return { status: true as const, message: SEND_MESSAGES.templateDeleted };
    },
  );
};
