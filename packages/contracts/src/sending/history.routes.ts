import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { ZEngagementAudience, ZEngagementCount, ZEngagementResend } from './engagement';
import {
  ZEditEmailData,
  ZHistoryCounts,
  ZHistoryDetailPage,
  ZHistoryDetailQuery,
  ZHistoryPage,
  ZHistoryQuery,
  ZScheduledEdit,
  ZScheduledPage,
  ZScheduledQuery,
} from './history';
import { ZSendEmailRequest } from './sending';
import { ZSendFiguresResponse } from './transactional';

const ZDetailParams = z.object({
  accountId: z.coerce.number().int().positive(),
  id: z.coerce.number().int().positive(),
});

/** Send history, its details and export, and scheduled emails (spec §2 screens 8–10, §7). */
export const historyApi = {
  list: defineRoute({
    scope: 'reports:read',
    method: 'GET',
    path: '/history',
    query: ZHistoryQuery,
    response: ZHistoryPage,
  }),
  counts: defineRoute({
    scope: 'reports:read',
    method: 'GET',
    path: '/history/get-counts/:id',
    params: ZIdParams,
    response: ZHistoryCounts,
  }),
  /** 'Yes, Send Again': a new send with the old one's account, lists and message. */
  resend: defineRoute({
    method: 'POST',
    path: '/history/resend',
    body: z.object({ accountId: z.coerce.number().int().positive(), id: z.coerce.number().int().positive() }),
    response: ZStatusMessage.extend({ id: z.number().int() }),
  }),
  /** Re-send by engagement (issue 31; paths of ours beside `/history/resend`): how many it would reach. */
  engagementCount: defineRoute({
    method: 'GET',
    path: '/history/resend-engagement/:id',
    params: ZIdParams,
    query: ZEngagementAudience,
    response: ZEngagementCount,
  }),
  /** A new send to the previous send's recipients who did (or did not) engage. */
  resendEngagement: defineRoute({
    method: 'POST',
    path: '/history/resend-engagement/:id',
    params: ZIdParams,
    body: ZEngagementResend,
    response: ZStatusMessage.extend({ id: z.number().int(), count: z.number().int() }),
  }),
  /** Any send's figures (one of Send Email's, a transactional one, a drip step's), by the one definition. */
  figures: defineRoute({
    scope: 'reports:read',
    method: 'GET',
    path: '/history/sends/:id/figures',
    params: ZIdParams,
    response: ZSendFiguresResponse,
  }),
  details: defineRoute({
    scope: 'reports:read',
    method: 'GET',
    path: '/history/details/:accountId/:id',
    params: ZDetailParams,
    query: ZHistoryDetailQuery,
    response: ZHistoryDetailPage,
  }),
  /** The details as CSV (formula cells escaped, R17). */
  export: defineRoute({
    scope: 'reports:read',
    method: 'GET',
    path: '/history/details/:accountId/:id/export',
    params: ZDetailParams,
    query: ZHistoryDetailQuery,
    response: z.string(),
  }),
  editEmailData: defineRoute({
    method: 'GET',
    path: '/email/get-edit-email-data/:id',
    params: ZIdParams,
    response: ZEditEmailData,
  }),
  scheduledEditData: defineRoute({
    method: 'GET',
    path: '/email/get-scheduled-edit-email-data/:id',
    params: ZIdParams,
    response: ZEditEmailData,
  }),
  scheduled: defineRoute({ method: 'GET', path: '/scheduled-mails', query: ZScheduledQuery, response: ZScheduledPage }),
  editScheduled: defineRoute({
    method: 'POST',
    path: '/scheduled-mails/edit/:id',
    params: ZIdParams,
    body: ZScheduledEdit,
    response: ZStatusMessage,
  }),
  /**
   * Edit Scheduled Email as the spec draws it: the whole Send Email form (account, sender,
   * lists, message, tracking) under its names, the delivery time required (`delivery`,
   * `YYYY-MM-DD hh:mm A` in the user's zone). Path not shown in the spec.
   */
  updateScheduled: defineRoute({
    method: 'POST',
    path: '/scheduled-mails/update/:id',
    params: ZIdParams,
    body: ZSendEmailRequest,
    response: ZStatusMessage,
  }),
  cancelScheduled: defineRoute({
    method: 'POST',
    path: '/scheduled-mails/cancel/:id',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
  removeCancel: defineRoute({
    method: 'POST',
    path: '/scheduled-mails/cancel/:id/remove-cancel',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
  deleteScheduled: defineRoute({
    method: 'POST',
    path: '/scheduled-mails/delete/:id',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
};
