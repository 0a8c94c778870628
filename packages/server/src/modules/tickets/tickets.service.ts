import {
  TICKET_MESSAGES,
  type TTicket,
  type TTicketDetails,
  type TTicketPage,
  type ZOperatorTicketQuery,
  type ZServiceNewTicket,
  type ZTicketPageQuery,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { publishToUser } from '../../platform/realtime';
import { notifyTicketAnswerJob } from './tickets.jobs';
import * as repository from './tickets.repository';

/**
 * Support tickets: conversations between a user and the operators, reached three ways —
 * the user's Support page (by their session), the ticket service API of spec §7 (by email,
 * for other apps) and the operator area. Tables `tickets` and `ticket_messages`.
 */

const SORT = {
  date_last_response: 'tickets.last_response_at',
  date_created: 'tickets.created_at',
  subject: 'tickets.subject',
} as const;

export const toTicket = (row: repository.TTicketRow): TTicket => ({
  id: row.id,
  subject: row.subject,
  date_created: row.created_at.toISOString(),
  date_last_response: row.last_response_at.toISOString(),
  date_closed: row.closed_at?.toISOString() ?? null,
  active: row.active,
  read: row.read,
  email: row.email,
});

const detailsOf = async (db: Executor, row: repository.TTicketRow): Promise<TTicketDetails> => ({
  ...toTicket(row),
  messages: (await repository.findMessages(db, row.id)).map((message) => ({
    from: message.author,
    message: message.message,
    date_created: message.created_at.toISOString(),
  })),
});

export const countUnreadTickets = repository.countUnread;

/** The unread answers on the signed-in user's information (the navigation's badge): a hook auth offers. */
export const unreadTicketsOf = async (db: Executor, userId: number) => ({
  unread_tickets: await repository.countUnread(db, userId),
});

/** A user's own ticket, or 404 (R12). */
const requireOwnTicket = async (db: Executor, userId: number, id: number) => {
  const row = await repository.findTicket(db, id);
  if (!row || row.user_id !== userId) throw notFound('This ticket does not exist.');
  return row;
};

const requireTicket = async (db: Executor, id: number) => {
  const row = await repository.findTicket(db, id);
  if (!row) throw notFound('This ticket does not exist.');
  return row;
};

const closedError = () => new HttpError(409, TICKET_MESSAGES.closed, 'TICKET_CLOSED');

// --- the user's side ---

export const listUserTickets = async (
  platform: TPlatform,
  userId: number,
  query: z.output<typeof ZTicketPageQuery>,
): Promise<TTicketPage> => {
  const page = await paginate(repository.selectTickets(platform.db).where('tickets.user_id', '=', userId), query, {
    sortColumns: SORT,
    searchColumns: ['tickets.subject'],
    tieBreaker: 'tickets.id',
  });
  return {
    data: page.data.map(toTicket),
    meta: page.meta,
    unread: await repository.countUnread(platform.db, userId),
  };
};

/** The user's ticket with its messages; reading it marks the operators' answers read. */
export const readUserTicket = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireOwnTicket(platform.db, userId, id);
  if (!row.read) {
    await repository.markRead(platform.db, id);
    row.read = true;
  }
  return { data: await detailsOf(platform.db, row), unread: await repository.countUnread(platform.db, userId) };
};

export const createTicket = async (
  platform: TPlatform,
  ticket: { userId: number | null; email: string; subject: string; message: string },
) => {
  const id = await platform.db.transaction().execute((trx) => repository.insertTicket(trx, ticket));
  return toTicket((await repository.findTicket(platform.db, id))!);
};

export const respondAsUser = async (platform: TPlatform, userId: number, id: number, text: string) => {
  await requireOwnTicket(platform.db, userId, id);
  return addUserMessage(platform, id, userId, text);
};

const addUserMessage = async (platform: TPlatform, id: number, userId: number | null, text: string) => {
  const isAdded = await platform.db
    .transaction()
    .execute((trx) => repository.insertMessage(trx, { ticketId: id, author: 'user', authorUserId: userId, text }));
  if (!isAdded) throw closedError();
  return detailsOf(platform.db, (await repository.findTicket(platform.db, id))!);
};

// --- the ticket service API (spec §7), for other apps: by email ---

export const listTicketsOfEmail = async (platform: TPlatform, email: string) =>
  (
    await repository
      .selectTickets(platform.db)
      .where((eb) => eb(eb.fn('lower', ['tickets.email']), '=', email.toLowerCase()))
      .orderBy('tickets.last_response_at', 'desc')
      .limit(500)
      .execute()
  ).map(toTicket);

export const serviceTicketDetails = async (platform: TPlatform, id: number) =>
  detailsOf(platform.db, await requireTicket(platform.db, id));

export const serviceSendMessage = async (platform: TPlatform, id: number, text: string) => {
  const row = await requireTicket(platform.db, id);
  return addUserMessage(platform, id, row.user_id, text);
};

export const serviceCreateTicket = (
  platform: TPlatform,
  ticket: z.output<typeof ZServiceNewTicket>,
  userId: number | null,
) => createTicket(platform, { userId, email: ticket.email, subject: ticket.subject, message: ticket.message });

// --- the operators' side ---

export const listAllTickets = async (platform: TPlatform, query: z.output<typeof ZOperatorTicketQuery>) => {
  let rows = repository
    .selectTickets(platform.db)
    .select(sql<string>`(select count(*) from ticket_messages m where m.ticket_id = tickets.id)`.as('messages_count'));
  if (query.status !== 'all') rows = rows.where('tickets.active', '=', query.status === 'active');
  const page = await paginate(rows, query, {
    sortColumns: SORT,
    searchColumns: ['tickets.subject', 'tickets.email'],
    tieBreaker: 'tickets.id',
  });
  return {
    data: page.data.map((row) => ({
      ...toTicket(row),
      user_id: row.user_id,
      messages_count: Number(row.messages_count),
    })),
    meta: page.meta,
  };
};

export const operatorTicketDetails = serviceTicketDetails;

/**
 * An operator's answer: stored, the ticket unread for its user, the user's tabs told at
 * commit (badge and open ticket), and an email queued in the same transaction.
 */
export const answerTicket = async (platform: TPlatform, operatorId: number, id: number, text: string) => {
  const row = await requireTicket(platform.db, id);
  await platform.db.transaction().execute(async (trx) => {
    const isAdded = await repository.insertMessage(trx, {
      ticketId: id,
      author: 'operator',
      authorUserId: operatorId,
      text,
    });
    if (!isAdded) throw closedError();
    if (row.user_id !== null) {
      await publishToUser(trx, row.user_id, 'TicketEvent', {
        id,
        unread: await repository.countUnread(trx, row.user_id),
      });
    }
    await platform.queue.enqueue(notifyTicketAnswerJob, { ticketId: id }, { executor: trx });
  });
  return detailsOf(platform.db, (await repository.findTicket(platform.db, id))!);
};

export const closeTicket = async (platform: TPlatform, id: number) => {
  const row = await requireTicket(platform.db, id);
  await platform.db.transaction().execute(async (trx) => {
    await repository.closeTicket(trx, id);
    if (row.user_id !== null) {
      await publishToUser(trx, row.user_id, 'TicketEvent', {
        id,
        unread: await repository.countUnread(trx, row.user_id),
      });
    }
  });
  return detailsOf(platform.db, (await repository.findTicket(platform.db, id))!);
};

/** The email a user gets when an operator answers: the answer and where to reply. */
export const mailTicketAnswer = async (platform: TPlatform, ticketId: number, supportUrl: string) => {
  const row = await repository.findTicket(platform.db, ticketId);
  if (!row) return;
  const messages = await repository.findMessages(platform.db, ticketId);
  const answer = messages.filter((message) => message.author === 'operator').at(-1);
  if (!answer) return;
  await platform.mailer.send({
    to: row.email,
    subject: `Re: ${row.subject}`,
    text: `Our support team answered your ticket "${row.subject}":\n\n${answer.message}\n\nRead and reply: ${supportUrl}\n`,
  });
};
