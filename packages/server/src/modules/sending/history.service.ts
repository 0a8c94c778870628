import {
  safeCell,
  type THistoryCounts,
  type THistoryRecord,
  type TScheduledEdit,
  type TScheduledEmail,
  type ZHistoryDetailQuery,
  type ZHistoryQuery,
  type ZScheduledQuery,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { fieldError, HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import * as repository from './history.repository';
import { fromHeader } from './message';
import { createSend } from './sending.service';

/**
 * The read side of the engine for the user: send history with its counters and delivery
 * events, and scheduled sends with the state changes spec §4 allows (0 Pending may be
 * edited and cancelled while it has not started, 2 Cancelled may have the cancel removed,
 * 1 Sent neither; a send that is not running may be deleted).
 */

const isGmail = (row: repository.TSendRow) => row.provider === 'google' || row.driver === 'gmail';

export const toHistoryRecord = (row: repository.TSendRow): THistoryRecord => ({
  id: row.id,
  account_id: row.account_id,
  provider: row.provider,
  from: fromHeader(row.from_name, row.from_address),
  subject: row.subject,
  to: row.list_names,
  type: row.type,
  status: row.status === 'finished' ? 1 : 0,
  state: row.status,
  recipients_count: row.recipients_count,
  sent_count: row.sent_count,
  created_at: row.created_at.toISOString(),
  deliver_at: row.deliver_at?.toISOString() ?? null,
  finished_at: row.finished_at?.toISOString() ?? null,
});

const requireSend = async (platform: TPlatform, userId: number, id: number, accountId?: number) => {
  const row = await repository.findSend(platform.db, userId, id);
  if (!row || (accountId !== undefined && row.account_id !== accountId)) throw notFound('This send does not exist.');
  return row;
};

export const listHistory = async (platform: TPlatform, userId: number, query: z.output<typeof ZHistoryQuery>) => {
  let rows = repository.selectSends(platform.db, userId);
  if (query.type) rows = rows.where('sends.type', '=', Number(query.type) as 1 | 2);
  for (const bound of repository.dateBounds(userId, 'sends.created_at', query)) rows = rows.where(bound);
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'sends.created_at', subject: 'sends.subject', deliver_at: 'sends.deliver_at' },
    searchColumns: ['sends.subject', 'sends.list_names', 'sends.from_address', 'sends.from_name'],
    tieBreaker: 'sends.id',
  });
  return { data: page.data.map(toHistoryRecord), meta: page.meta };
};

export const historyCounts = async (platform: TPlatform, userId: number, id: number): Promise<THistoryCounts> => {
  const row = await requireSend(platform, userId, id);
  return {
    status: true,
    counts: {
      sent_count: row.sent_count,
      delivered_count: row.delivered_count,
      failed_count: row.failed_count,
      complained_count: row.complained_count,
      unsubscribed_count: row.unsubscribed_count,
      clicked_count: row.clicked_count,
      opened_count: row.opened_count,
      unknown_count: row.unknown_count,
    },
    isSmtp: row.provider === 'smtp' && !isGmail(row),
    isGmail: isGmail(row),
  };
};

const eventsQuery = (
  platform: TPlatform,
  sendId: number,
  query: Pick<z.output<typeof ZHistoryDetailQuery>, 'event_type'>,
) => {
  let rows = repository.selectSendEvents(platform.db, sendId);
  if (query.event_type) rows = rows.where('type', '=', query.event_type === 'sent' ? 'accepted' : query.event_type);
  return rows;
};

export const historyDetails = async (
  platform: TPlatform,
  userId: number,
  accountId: number,
  id: number,
  query: z.output<typeof ZHistoryDetailQuery>,
) => {
  const send = await requireSend(platform, userId, id, accountId);
  const page = await paginate(eventsQuery(platform, id, query), query, {
    sortColumns: { created_at: 'occurred_at', recipient: 'email', event_type: 'type' },
    searchColumns: ['email', 'detail'],
    tieBreaker: 'id',
  });
  return {
    data: page.data.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    meta: page.meta,
    send: toHistoryRecord(send),
  };
};

/** Rows per statement when exporting, so a million events never sit in memory at once. */
const EXPORT_SLICE = 5_000;

/**
 * The details as CSV, read slice by slice (keyset on the event id) and written as they come;
 * every cell through `safeCell`, so no recipient-controlled text runs as a formula (R17).
 */
export async function* historyExport(
  platform: TPlatform,
  userId: number,
  accountId: number,
  id: number,
  query: z.output<typeof ZHistoryDetailQuery>,
) {
  await requireSend(platform, userId, id, accountId);
  const search = query.search?.trim().toLowerCase();
  yield `\uFEFF${stringify([['Recipient', 'Event', 'Date', 'Detail']])}`;
  let after = 0;
  for (;;) {
    const rows = await eventsQuery(platform, id, query)
      .where('id', '>', after)
      .orderBy('id')
      .limit(EXPORT_SLICE)
      .execute();
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    const kept = search
      ? rows.filter((row) => row.recipient.toLowerCase().includes(search) || row.detail?.toLowerCase().includes(search))
      : rows;
    yield stringify(
      kept.map((row) => [row.recipient, row.event_type, row.created_at.toISOString(), row.detail ?? ''].map(safeCell)),
    );
  }
}

export const resendFromHistory = async (platform: TPlatform, userId: number, accountId: number, id: number) => {
  const row = await requireSend(platform, userId, id, accountId);
  return createSend(platform, userId, {
    accountId,
    fromName: row.from_name,
    fromAddress: row.from_address,
    subject: row.subject,
    html: row.html,
    listIds: row.list_ids.map(Number),
    cc: row.cc,
    bcc: row.bcc,
    replyTo: row.reply_to,
  });
};

export const editEmailData = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  return {
    status: true,
    record: {
      id: row.id,
      from: row.from_name,
      to: row.list_names,
      list_ids: row.list_ids.map(Number),
      subject: row.subject,
      account_id: row.account_id,
      delivery_time: row.deliver_at?.toISOString() ?? null,
      content: { cc: row.cc, bcc: row.bcc, reply_to: row.reply_to, message_body: row.html },
    },
  };
};

/** Spec §3 scheduled email status: 0 pending, 1 sent (started), 2 cancelled. */
const scheduledStatus = (row: repository.TSendRow): 0 | 1 | 2 => {
  if (row.status === 'cancelled') return row.started_at ? 1 : 2;
  return row.status === 'scheduled' ? 0 : 1;
};

const toScheduled = (row: repository.TSendRow): TScheduledEmail => ({
  id: row.id,
  from: fromHeader(row.from_name, row.from_address),
  to: row.list_names,
  subject: row.subject,
  cc: row.cc,
  bcc: row.bcc,
  content: { cc: row.cc, bcc: row.bcc, reply_to: row.reply_to, message_body: row.html },
  account_id: row.account_id,
  delivery_time: row.deliver_at?.toISOString() ?? null,
  send_time: row.started_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  status: scheduledStatus(row),
});

export const listScheduled = async (platform: TPlatform, userId: number, query: z.output<typeof ZScheduledQuery>) => {
  let rows = repository.selectSends(platform.db, userId).where('sends.type', '=', 2);
  for (const bound of repository.dateBounds(userId, 'sends.deliver_at', query)) rows = rows.where(bound);
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'sends.created_at', deliver_at: 'sends.deliver_at', subject: 'sends.subject' },
    searchColumns: ['sends.subject', 'sends.list_names'],
    tieBreaker: 'sends.id',
  });
  return { data: page.data.map(toScheduled), meta: page.meta };
};

const notNow = (row: repository.TSendRow, what: string) =>
  new HttpError(
    409,
    `This email is ${['pending', 'sent', 'cancelled'][scheduledStatus(row)]}: it cannot be ${what}.`,
    'SEND_STATE',
  );

export const editScheduled = async (platform: TPlatform, userId: number, id: number, edit: TScheduledEdit) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2) throw notFound('This scheduled email does not exist.');
  const deliverAt = new Date(edit.delivery_time);
  if (deliverAt.getTime() <= Date.now()) throw fieldError('delivery_time', 'The delivery time must be in the future.');
  const isEdited = await repository.updateScheduled(platform.db, userId, id, {
    subject: edit.subject,
    html: edit.message,
    cc: edit.cc,
    bcc: edit.bcc,
    reply_to: edit.reply_to,
    deliver_at: deliverAt,
  });
  if (!isEdited) throw notNow(row, 'edited');
};

export const cancelScheduled = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2 || !(await repository.setScheduledStatus(platform.db, userId, id, 'scheduled', 'cancelled'))) {
    throw notNow(row, 'cancelled');
  }
};

export const removeCancel = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2 || !(await repository.setScheduledStatus(platform.db, userId, id, 'cancelled', 'scheduled'))) {
    throw notNow(row, 'restored');
  }
};

export const deleteScheduled = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (!(await repository.deleteSend(platform.db, userId, id))) {
    throw new HttpError(409, 'This email is being sent: cancel it first, then delete it.', 'SEND_STATE');
  }
  return row.id;
};
