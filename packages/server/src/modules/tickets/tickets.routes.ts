import { supportApi, TICKET_MESSAGES, TICKET_SERVICE_PROJECT_HEADER, ticketServiceApi } from '@sendwell/contracts';
import { HttpError } from '../../platform/errors';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { safeEqual } from '../../platform/tokens';
import { findUserIdByEmail, getUserInformation } from '../auth/auth.service';
import {
  createTicket,
  listTicketsOfEmail,
  listUserTickets,
  readUserTicket,
  respondAsUser,
  serviceCreateTicket,
  serviceSendMessage,
  serviceTicketDetails,
} from './tickets.service';

const ticketLimit = perUserLimit('ticket-write', 30);

/** The Support page's calls: the signed-in user's own tickets. */
export const supportRoutes = moduleRoutes(['support'], (serve, platform) => {
  serve(supportApi.tickets, async (request) => listUserTickets(platform, userOf(request), request.query));
  serve(supportApi.ticket, async (request) => readUserTicket(platform, userOf(request), request.params.id));
  serve(supportApi.createTicket, { config: ticketLimit }, async (request) => {
    const user = await getUserInformation(platform, userOf(request));
    const data = await createTicket(platform, { userId: user.id, email: user.email, ...request.body });
    return { status: true, message: TICKET_MESSAGES.created, data };
  });
  serve(supportApi.respond, { config: ticketLimit }, async (request) => ({
    status: true,
    message: TICKET_MESSAGES.sent,
    data: await respondAsUser(platform, userOf(request), request.params.id, request.body.message),
  }));
});

/**
 * The ticket service of spec §7 for other apps: `Authorization: Bearer <key>` and the
 * project id in `X-Project-Id`, both compared in constant time; no session, no CSRF (the
 * caller holds no cookie). Unconfigured, every call answers 404 as if it were not there.
 */
export const ticketServiceRoutes = moduleRoutes(['ticket-service'], (serve, platform, app) => {
  const config = {
    public: true,
    rateLimit: { name: 'ticket-service', limit: 600, windowSeconds: 60, per: 'ip' as const, store: 'memory' as const },
  };
  const writeConfig = { ...config, csrf: false };
  app.addHook('preHandler', async (request) => {
    const service = platform.config.ticketService;
    if (!service) throw new HttpError(404, 'Not Found', 'NOT_FOUND');
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const project = String(request.headers[TICKET_SERVICE_PROJECT_HEADER] ?? '');
    // Both compared, whatever the first gave, so the answer's time says nothing.
    const isKey = safeEqual(bearer, service.key);
    const isProject = safeEqual(project, service.projectId);
    if (!isKey || !isProject) throw new HttpError(401, 'Invalid API key or project.', 'UNAUTHENTICATED');
  });

  serve(ticketServiceApi.list, { config }, async (request) => ({
    data: await listTicketsOfEmail(platform, request.params.email),
  }));
  serve(ticketServiceApi.details, { config }, async (request) => ({
    data: await serviceTicketDetails(platform, request.params.id),
  }));
  serve(ticketServiceApi.sendMessage, { config: writeConfig }, async (request) => ({
    status: true,
    message: TICKET_MESSAGES.sent,
    data: await serviceSendMessage(platform, request.params.id, request.body.message),
  }));
  serve(ticketServiceApi.create, { config: writeConfig }, async (request) => {
    const userId = await findUserIdByEmail(platform.db, request.body.email);
    return {
      status: true,
      message: TICKET_MESSAGES.created,
      data: await serviceCreateTicket(platform, request.body, userId),
    };
  });
});
