import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import {
  ZAnnouncement,
  ZNewTicket,
  ZServiceNewTicket,
  ZTicket,
  ZTicketDetails,
  ZTicketPage,
  ZTicketPageQuery,
  ZTicketResponse,
} from './support';

/** The signed-in user's side of support: their tickets and the current announcement. */
export const supportApi = {
  tickets: defineRoute({ method: 'GET', path: '/tickets', query: ZTicketPageQuery, response: ZTicketPage }),
  /** Reading a ticket marks its answers read. */
  ticket: defineRoute({
    method: 'GET',
    path: '/tickets/:id',
    params: ZIdParams,
    response: z.object({ data: ZTicketDetails, unread: z.number().int() }),
  }),
  createTicket: defineRoute({
    method: 'POST',
    path: '/tickets',
    body: ZNewTicket,
    response: ZStatusMessage.extend({ data: ZTicket }),
  }),
  respond: defineRoute({
    method: 'PUT',
    path: '/tickets/:id/messages',
    params: ZIdParams,
    body: ZTicketResponse,
    response: ZStatusMessage.extend({ data: ZTicketDetails }),
  }),
  announcement: defineRoute({
    method: 'GET',
    path: '/announcements/current',
    response: z.object({ data: ZAnnouncement.nullable() }),
  }),
};

/**
 * The ticket service of spec §7, served by Sendwell under `/api/ticket-service` for other
 * apps (a bearer key and the project id in headers, no session), with the spec's paths.
 */
export const ticketServiceApi = {
  list: defineRoute({
    method: 'GET',
    path: '/ticket-service/tickets/:email',
    params: z.object({ email: z.string().min(3).max(320) }),
    response: z.object({ data: z.array(ZTicket) }),
  }),
  details: defineRoute({
    method: 'GET',
    path: '/ticket-service/tickets/details/:id',
    params: ZIdParams,
    response: z.object({ data: ZTicketDetails }),
  }),
  sendMessage: defineRoute({
    method: 'PUT',
    path: '/ticket-service/tickets/send-message/:id',
    params: ZIdParams,
    body: ZTicketResponse,
    response: ZStatusMessage.extend({ data: ZTicketDetails }),
  }),
  create: defineRoute({
    method: 'POST',
    path: '/ticket-service/tickets/create',
    body: ZServiceNewTicket,
    response: ZStatusMessage.extend({ data: ZTicket }),
  }),
};

/** The headers the ticket service reads (spec §7: bearer key, project id). */
export const TICKET_SERVICE_PROJECT_HEADER = 'x-project-id';
