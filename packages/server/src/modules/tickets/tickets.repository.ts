import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { countRows } from '../../platform/queries';

const TICKET_COLUMNS = [
  'tickets.id',
  'tickets.user_id',
  'tickets.email',
  'tickets.subject',
  'tickets.active',
  'tickets.read',
  'tickets.created_at',
  'tickets.last_response_at',
  'tickets.closed_at',
] as const;

/** Tickets with the columns every answer shows, for a page query to narrow. */
export const selectTickets = (db: Executor) => db.selectFrom('tickets').select(TICKET_COLUMNS);

export type TTicketRow = Awaited<ReturnType<ReturnType<typeof selectTickets>['executeTakeFirstOrThrow']>>;

export const findTicket = (db: Executor, id: number) =>
  selectTickets(db).where('tickets.id', '=', id).executeTakeFirst();

export const findMessages = (db: Executor, ticketId: number) =>
  db
    .selectFrom('ticket_messages')
    .select(['author', 'message', 'created_at'])
    .where('ticket_id', '=', ticketId)
    .orderBy('id')
    .execute();

export const insertTicket = async (
  db: Executor,
  ticket: { userId: number | null; email: string; subject: string; message: string },
) => {
  const row = await db
    .insertInto('tickets')
    .values({ user_id: ticket.userId, email: ticket.email, subject: ticket.subject })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('ticket_messages')
    .values({ ticket_id: row.id, author: 'user', author_user_id: ticket.userId, message: ticket.message })
    .execute();
  return row.id;
};

/**
 * Adds a message to an open ticket and moves its last-response time; an operator's answer
 * makes the ticket unread for its user. Answers false when the ticket is closed.
 */
export const insertMessage = async (
  db: Executor,
  message: { ticketId: number; author: 'user' | 'operator'; authorUserId: number | null; text: string },
) => {
  const moved = await db
    .updateTable('tickets')
    .set({
      last_response_at: sql`now()`,
      ...(message.author === 'operator' ? { read: false } : {}),
    })
    .where('id', '=', message.ticketId)
    .where('active', '=', true)
    .executeTakeFirst();
  if (moved.numUpdatedRows === 0n) return false;
  await db
    .insertInto('ticket_messages')
    .values({
      ticket_id: message.ticketId,
      author: message.author,
      author_user_id: message.authorUserId,
      message: message.text,
    })
    .execute();
  return true;
};

export const markRead = (db: Executor, ticketId: number) =>
  db.updateTable('tickets').set({ read: true }).where('id', '=', ticketId).where('read', '=', false).execute();

export const closeTicket = (db: Executor, ticketId: number) =>
  db
    .updateTable('tickets')
    .set({ active: false, closed_at: sql`now()` })
    .where('id', '=', ticketId)
    .where('active', '=', true)
    .executeTakeFirst();

export const countUnread = (db: Executor, userId: number) =>
  countRows(db.selectFrom('tickets').where('user_id', '=', userId).where('read', '=', false));
