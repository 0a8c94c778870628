import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';
import { ZBreakerSettings } from '../sending/circuit-breaker';
import { ZSpamReport } from '../spam-test/spam-test';
import {
  ZAccountForm,
  ZAccountProviders,
  ZCreateGoogleAccountRequest,
  ZSendingAccount,
  ZSendTestSmtpRequest,
  ZTestInboxMessage,
  ZTestInboxMessageDetail,
} from './accounts';

const ZSavedAccount = z.object({ status: z.literal(true), message: z.string(), data: ZSendingAccount });

export const accountsApi = {
  list: defineRoute({
    method: 'GET',
    path: '/settings/accounts',
    response: z.object({ data: z.array(ZSendingAccount) }),
  }),
  providers: defineRoute({ method: 'GET', path: '/settings/account/get-providers', response: ZAccountProviders }),
  create: defineRoute({
    method: 'POST',
    path: '/settings/account/create-or-update',
    body: ZAccountForm,
    response: ZSavedAccount,
  }),
  update: defineRoute({
    method: 'POST',
    path: '/settings/account/create-or-update/:id',
    params: ZIdParams,
    body: ZAccountForm,
    response: ZSavedAccount,
  }),
  /** The spec's call for a code from Google's JavaScript code client (popup mode). */
  createGoogleAccount: defineRoute({
    method: 'POST',
    path: '/settings/account/create-google-account',
    body: ZCreateGoogleAccountRequest,
    response: ZSavedAccount,
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/settings/account/delete-api/:id',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
  /**
   * The circuit breaker's lines of one account (issue 31; a path of ours, not the spec's):
   * saved alone, so changing them asks no credentials again.
   */
  breaker: defineRoute({
    method: 'POST',
    path: '/settings/account/:id/breaker',
    params: ZIdParams,
    body: ZBreakerSettings,
    response: ZSavedAccount,
  }),
  sendTestSmtp: defineRoute({
    method: 'POST',
    path: '/settings/account/send-test-smtp',
    body: ZSendTestSmtpRequest,
    response: z.object({ status: z.literal(true), result: z.literal(true), message: z.string() }),
  }),
  /** A browser navigation, not a fetch: redirects to Google, which comes back to `googleCallback`. */
  googleLogin: defineRoute({ method: 'GET', path: '/login/google', response: z.string() }),
  googleCallback: defineRoute({
    method: 'GET',
    path: '/login/google/callback',
    query: z.object({
      code: z.string().max(2_000).optional(),
      state: z.string().max(200).optional(),
      error: z.string().max(200).optional(),
    }),
    response: z.string(),
  }),
};

export const ZTestInboxQuery = pageQuery({
  columns: ['created_at', 'subject'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
});

export const testInboxApi = {
  messages: defineRoute({
    method: 'GET',
    path: '/test-inbox/messages',
    query: ZTestInboxQuery,
    response: pagedResponse(ZTestInboxMessage),
  }),
  message: defineRoute({
    method: 'GET',
    path: '/test-inbox/messages/:id',
    params: ZIdParams,
    response: z.object({ data: ZTestInboxMessageDetail }),
  }),
  /** The HTML part (a document, not JSON), served with a sandbox policy for a sandboxed frame. */
  messageHtml: defineRoute({
    method: 'GET',
    path: '/test-inbox/messages/:id/html',
    params: ZIdParams,
    response: z.string(),
  }),
  clear: defineRoute({ method: 'DELETE', path: '/test-inbox/messages', response: ZStatusMessage }),
  /** What a receiver sees: the headers as they arrived and the spam test's analysis of the message. */
  analysis: defineRoute({
    method: 'GET',
    path: '/test-inbox/messages/:id/analysis',
    params: ZIdParams,
    response: z.object({ data: z.object({ headers: z.string().nullable(), report: ZSpamReport.nullable() }) }),
  }),
  /** The message as it arrived (`.eml`). */
  raw: defineRoute({ method: 'GET', path: '/test-inbox/messages/:id/raw', params: ZIdParams, response: z.string() }),
};
