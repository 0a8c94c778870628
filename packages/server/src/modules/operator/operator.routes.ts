import { operatorApi } from '@sendwell/contracts';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/errors';
import { moduleRoutes, perUserLimit } from '../../platform/routes';
import {
  createAnnouncement,
  listAnnouncements,
  publishAnnouncement,
  updateAnnouncement,
} from '../announcements/announcements.service';
import { findOperator, listUsersForOperator } from '../auth/auth.service';
import { answerTicket, closeTicket, listAllTickets, operatorTicketDetails } from '../tickets/tickets.service';
import {
  audit,
  changeUserCredits,
  changeUserPlan,
  createOperatorPlan,
  listAudit,
  listOperatorPlans,
  listUserAccounts,
  setAccountDailyCap,
  setUserDisabled,
  systemStatus,
  type TOperator,
  updateOperatorPlan,
} from './operator.service';

declare module 'fastify' {
  interface FastifyRequest {
    operator: TOperator | null;
  }
}

const writeLimit = perUserLimit('operator-write', 600);

/**
 * The operator area. One guard for every route of this plugin: a signed-in user without
 * the operator role (or disabled) gets the same 404 as a path that does not exist (R12),
 * so the area is not even seen to be there.
 */
export const operatorRoutes = moduleRoutes(['operator'], (serve, platform, app) => {
  app.decorateRequest('operator', null);
  // onRequest, after the platform's (which finds the session) and before any validation: a
  // malformed call from a non-operator is a 404 too, not a 422 that says the route exists.
  app.addHook('onRequest', async (request) => {
    const operator = request.session ? await findOperator(platform.db, request.session.userId) : undefined;
    if (!operator) throw new HttpError(404, 'Not Found', 'NOT_FOUND');
    request.operator = operator;
  });
  const operatorOf = (request: FastifyRequest) => request.operator!;
  /** An announcement written: its audit line, then the answer. */
  const announcementSaved = async <T extends { id: number; title: string }>(
    request: FastifyRequest,
    action: 'announcement.create' | 'announcement.update',
    data: T,
  ) => {
    await audit(platform, operatorOf(request), {
      action,
      targetType: 'announcement',
      targetId: data.id,
      details: { title: data.title },
    });
    return { status: true as const, message: 'Announcement saved.', data };
  };

  serve(operatorApi.users, async (request) => listUsersForOperator(platform, request.query));
  serve(operatorApi.changeCredits, { config: writeLimit }, async (request) => ({
    status: true,
    message: request.body.action === 'grant' ? 'Credits granted.' : 'Credits removed.',
    data: await changeUserCredits(platform, operatorOf(request), request.params.id, request.body),
  }));
  serve(operatorApi.changePlan, { config: writeLimit }, async (request) => ({
    status: true,
    message: 'Plan changed.',
    data: await changeUserPlan(platform, operatorOf(request), request.params.id, request.body.planId),
  }));
  serve(operatorApi.disableUser, { config: writeLimit }, async (request) => ({
    status: true,
    message: request.body.disabled ? 'The user is disabled and signed out.' : 'The user can sign in again.',
    data: await setUserDisabled(platform, operatorOf(request), request.params.id, request.body),
  }));

  serve(operatorApi.userAccounts, async (request) => ({ data: await listUserAccounts(platform, request.params.id) }));
  serve(operatorApi.setDailyCap, { config: writeLimit }, async (request) => ({
    status: true,
    message:
      request.body.dailyCap === null
        ? "The account's daily cap is the user's own setting again."
        : `The account may send ${request.body.dailyCap.toLocaleString('en-US')} emails a day.`,
    data: await setAccountDailyCap(platform, operatorOf(request), request.params.id, request.body),
  }));

  serve(operatorApi.plans, async () => ({ data: await listOperatorPlans(platform) }));
  serve(operatorApi.createPlan, { config: writeLimit }, async (request) => ({
    status: true,
    message: 'Plan created.',
    data: await createOperatorPlan(platform, operatorOf(request), request.body),
  }));
  serve(operatorApi.updatePlan, { config: writeLimit }, async (request) => ({
    status: true,
    message: 'Plan saved.',
    data: await updateOperatorPlan(platform, operatorOf(request), request.params.id, request.body),
  }));

  serve(operatorApi.tickets, async (request) => listAllTickets(platform, request.query));
  serve(operatorApi.ticket, async (request) => ({ data: await operatorTicketDetails(platform, request.params.id) }));
  serve(operatorApi.answerTicket, { config: writeLimit }, async (request) => {
    const data = await answerTicket(platform, operatorOf(request).id, request.params.id, request.body.message);
    await audit(platform, operatorOf(request), { action: 'ticket.answer', targetType: 'ticket', targetId: data.id });
    return { status: true, message: 'Your answer was sent.', data };
  });
  serve(operatorApi.closeTicket, { config: writeLimit }, async (request) => {
    const data = await closeTicket(platform, request.params.id);
    await audit(platform, operatorOf(request), { action: 'ticket.close', targetType: 'ticket', targetId: data.id });
    return { status: true, message: 'The ticket is closed.', data };
  });

  serve(operatorApi.announcements, async () => ({ data: await listAnnouncements(platform) }));
  serve(operatorApi.createAnnouncement, { config: writeLimit }, async (request) => {
    const data = await createAnnouncement(platform, operatorOf(request).id, request.body);
    return announcementSaved(request, 'announcement.create', data);
  });
  serve(operatorApi.updateAnnouncement, { config: writeLimit }, async (request) => {
    const data = await updateAnnouncement(platform, request.params.id, request.body);
    return announcementSaved(request, 'announcement.update', data);
  });
  serve(operatorApi.publishAnnouncement, { config: writeLimit }, async (request) => {
    const data = await publishAnnouncement(platform, request.params.id, request.body.published);
    await audit(platform, operatorOf(request), {
      action: request.body.published ? 'announcement.publish' : 'announcement.unpublish',
      targetType: 'announcement',
      targetId: data.id,
    });
    return { status: true, message: request.body.published ? 'Published.' : 'Unpublished.', data };
  });

  serve(operatorApi.system, async () => ({ data: await systemStatus(platform) }));
  serve(operatorApi.audit, async (request) => listAudit(platform, request.query));
});
