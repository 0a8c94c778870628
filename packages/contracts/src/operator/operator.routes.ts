import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { ZAnnouncement, ZTicketDetails, ZTicketResponse } from '../support/support';
import {
  ZAnnouncementInput,
  ZAuditPage,
  ZAuditQuery,
  ZCreditChange,
  ZDailyCapChange,
  ZOperatorAccount,
  ZOperatorPlan,
  ZOperatorTicketPage,
  ZOperatorTicketQuery,
  ZOperatorUser,
  ZOperatorUserPage,
  ZOperatorUserQuery,
  ZPlanInput,
  ZSystemStatus,
  ZUserDisable,
  ZUserPlanChange,
} from './operator';

const done = <T extends z.ZodType>(data: T) => ZStatusMessage.extend({ data });

/** The operator area: only users with the operator role reach it (anyone else gets 404). */
export const operatorApi = {
  users: defineRoute({
    method: 'GET',
    path: '/operator/users',
    query: ZOperatorUserQuery,
    response: ZOperatorUserPage,
  }),
  changeCredits: defineRoute({
    method: 'POST',
    path: '/operator/users/:id/credits',
    params: ZIdParams,
    body: ZCreditChange,
    response: done(ZOperatorUser),
  }),
  changePlan: defineRoute({
    method: 'POST',
    path: '/operator/users/:id/plan',
    params: ZIdParams,
    body: ZUserPlanChange,
    response: done(ZOperatorUser),
  }),
  disableUser: defineRoute({
    method: 'POST',
    path: '/operator/users/:id/disable',
    params: ZIdParams,
    body: ZUserDisable,
    response: done(ZOperatorUser),
  }),
  /** A user's sending accounts with their daily caps. */
  userAccounts: defineRoute({
    method: 'GET',
    path: '/operator/users/:id/accounts',
    params: ZIdParams,
    response: z.object({ data: z.array(ZOperatorAccount) }),
  }),
  /** An SMTP or Gmail account's daily cap, past the form's 1,000 or back to the user's own (issue 30). */
  setDailyCap: defineRoute({
    method: 'POST',
    path: '/operator/accounts/:id/daily-cap',
    params: ZIdParams,
    body: ZDailyCapChange,
    response: done(ZOperatorAccount),
  }),
  plans: defineRoute({ method: 'GET', path: '/operator/plans', response: z.object({ data: z.array(ZOperatorPlan) }) }),
  createPlan: defineRoute({ method: 'POST', path: '/operator/plans', body: ZPlanInput, response: done(ZOperatorPlan) }),
  updatePlan: defineRoute({
    method: 'PUT',
    path: '/operator/plans/:id',
    params: ZIdParams,
    body: ZPlanInput,
    response: done(ZOperatorPlan),
  }),
  tickets: defineRoute({
    method: 'GET',
    path: '/operator/tickets',
    query: ZOperatorTicketQuery,
    response: ZOperatorTicketPage,
  }),
  ticket: defineRoute({
    method: 'GET',
    path: '/operator/tickets/:id',
    params: ZIdParams,
    response: z.object({ data: ZTicketDetails }),
  }),
  answerTicket: defineRoute({
    method: 'PUT',
    path: '/operator/tickets/:id/messages',
    params: ZIdParams,
    body: ZTicketResponse,
    response: done(ZTicketDetails),
  }),
  closeTicket: defineRoute({
    method: 'POST',
    path: '/operator/tickets/:id/close',
    params: ZIdParams,
    response: done(ZTicketDetails),
  }),
  announcements: defineRoute({
    method: 'GET',
    path: '/operator/announcements',
    response: z.object({ data: z.array(ZAnnouncement) }),
  }),
  createAnnouncement: defineRoute({
    method: 'POST',
    path: '/operator/announcements',
    body: ZAnnouncementInput,
    response: done(ZAnnouncement),
  }),
  updateAnnouncement: defineRoute({
    method: 'PUT',
    path: '/operator/announcements/:id',
    params: ZIdParams,
    body: ZAnnouncementInput,
    response: done(ZAnnouncement),
  }),
  publishAnnouncement: defineRoute({
    method: 'POST',
    path: '/operator/announcements/:id/publish',
    params: ZIdParams,
    body: z.object({ published: z.boolean() }),
    response: done(ZAnnouncement),
  }),
  system: defineRoute({ method: 'GET', path: '/operator/system', response: z.object({ data: ZSystemStatus }) }),
  audit: defineRoute({ method: 'GET', path: '/operator/audit', query: ZAuditQuery, response: ZAuditPage }),
};
