import { z } from 'zod';
import { defineRoute, ZIdParams } from '../http/routes';
import { ZPreSendCheck, ZPreSendRequest } from './pre-send';
import {
  ZAccountListsResponse,
  ZDuplicatesRequest,
  ZDuplicatesResponse,
  ZSaveTemplateRequest,
  ZSendAfterVerification,
  ZSendEmailContent,
  ZSendEmailRequest,
  ZSendEmailResponse,
  ZSendProgress,
  ZStorageId,
  ZTemplate,
} from './sending';
import { ZTransactionalRequest, ZTransactionalResponse } from './transactional';

const ZStatus = z.object({ status: z.literal(true), message: z.string() });

/** A change of a running send's state: `POST /email/sends/:id/<action>`. */
const sendStateRoute = <P extends string>(path: P) =>
  defineRoute({ method: 'POST', path, params: ZIdParams, response: ZStatus });

/** The Send Email page's calls (spec §7 sending). */
export const sendEmailApi = {
  content: defineRoute({
    method: 'GET',
    path: '/email/send-email-content',
    query: z.object({ account: z.coerce.number().int().positive().optional() }),
    response: ZSendEmailContent,
  }),
  accountLists: defineRoute({
    method: 'GET',
    path: '/email/get-mailing-lists/:accountId',
    params: z.object({ accountId: z.coerce.number().int().positive() }),
    response: ZAccountListsResponse,
  }),
  duplicates: defineRoute({
    method: 'POST',
    path: '/email/get-duplicates',
    body: ZDuplicatesRequest,
    response: ZDuplicatesResponse,
  }),
  send: defineRoute({
    scope: 'send',
    method: 'POST',
    path: '/email/send',
    body: ZSendEmailRequest,
    response: ZSendEmailResponse,
  }),
  /** The pre-send check (issue 31 §1; a path of ours beside `/email/send`): the form as it would be sent. */
  preSendCheck: defineRoute({
    method: 'POST',
    path: '/email/pre-send-check',
    body: ZPreSendRequest,
    response: ZPreSendCheck,
  }),
  /** A saved template to one address (issue 48 §2): exactly once per idempotency key. */
  transactional: defineRoute({
    scope: 'send',
    method: 'POST',
    path: '/email/transactional',
    body: ZTransactionalRequest,
    response: ZTransactionalResponse,
  }),
  progress: defineRoute({
    scope: 'send',
    method: 'GET',
    path: '/email/sends/:id',
    params: ZIdParams,
    response: z.object({ data: ZSendProgress }),
  }),
  pause: sendStateRoute('/email/sends/:id/pause'),
  resume: sendStateRoute('/email/sends/:id/resume'),
  cancel: sendStateRoute('/email/sends/:id/cancel'),
  /** Recipients whose outcome is unknown, sent again on the user's say-so. */
  resendUnknown: sendStateRoute('/email/sends/:id/resend-unknown'),
  /** The user's sends waiting for their lists' verification (the verify-lists upsell), to show again after a reload. */
  waitingSends: defineRoute({
    method: 'GET',
    path: '/email/waiting-sends',
    response: z.object({ data: z.array(ZSendAfterVerification) }),
  }),
  /** A waiting send given up before its lists are verified (the verification goes on; nothing is sent). */
  cancelWaitingSend: defineRoute({
    method: 'POST',
    path: '/email/waiting-sends/:storageId/cancel',
    params: z.object({ storageId: ZStorageId }),
    response: ZStatus,
  }),
};

/** The template library the Send Email page offers (three built in, and the user's own). */
export const templatesApi = {
  list: defineRoute({
    scope: 'send',
    method: 'GET',
    path: '/templates',
    response: z.object({ data: z.array(ZTemplate) }),
  }),
  save: defineRoute({
    method: 'POST',
    path: '/templates',
    body: ZSaveTemplateRequest,
    response: ZStatus.extend({ data: ZTemplate }),
  }),
  delete: defineRoute({ method: 'DELETE', path: '/templates/:id', params: ZIdParams, response: ZStatus }),
};
