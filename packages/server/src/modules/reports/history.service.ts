import {
  figuresOfSend,
  safeCell,
  type THistoryCounts,
  type THistoryRecord,
  type TSendCounts,
  type ZHistoryDetailQuery,
  type ZHistoryQuery,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { dateBounds } from '../../platform/date-filter';
import { notFound } from '../../platform/errors';
import { paginate, slicesAfter } from '../../platform/paging';
import { abTestPartsOf, abTestResultOf } from '../ab-tests/ab-tests.service';
import { findAccountRow, listAccountRows } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import {
  findBounceSplit,
  findSendForFigures,
  findUserSend,
  fromHeader,
  selectSendEvents,
  selectUserSends,
  type TSendRow,
} from '../delivery/delivery.service';

/**
 * History (spec §2): the user's sends with their counters and delivery events, and the
 * events as CSV. A read side over the engine's records, through the delivery service;
 * Scheduled Emails and "Send again" are the Send Email module's.
 */

/** The kind of account each send went through (a user has a handful of accounts). */
const accountsOf = async (platform: TPlatform, userId: number) =>
  new Map((await listAccountRows(platform.db, userId)).map((account) => [account.id, account]));

type TAccountKind = { provider: string | null; driver: string | null } | undefined;

const accountOf = async (platform: TPlatform, userId: number, accountId: number | null): Promise<TAccountKind> =>
  accountId === null ? undefined : findAccountRow(platform.db, userId, accountId);

const isGmail = (account: TAccountKind) => account?.provider === 'google' || account?.driver === 'gmail';

export const toHistoryRecord = (row: TSendRow, account: TAccountKind): THistoryRecord => ({
  id: row.id,
  account_id: row.account_id,
  provider: (account?.provider ?? null) as THistoryRecord['provider'],
  from: fromHeader(row.from_name, row.from_address),
  subject: row.subject,
  to: row.list_names,
  type: row.type,
  status: row.status === 'finished' ? 1 : 0,
  state: row.status,
  note: row.note,
  recipients_count: row.recipients_count,
  sent_count: row.sent_count,
  created_at: row.created_at.toISOString(),
  deliver_at: row.deliver_at?.toISOString() ?? null,
  finished_at: row.finished_at?.toISOString() ?? null,
});

export const requireSend = async (platform: TPlatform, userId: number, id: number, accountId?: number) => {
  const row = await findUserSend(platform.db, userId, id);
  if (!row || (accountId !== undefined && row.account_id !== accountId)) throw notFound('This send does not exist.');
  return row;
};

export const listHistory = async (platform: TPlatform, userId: number, query: z.output<typeof ZHistoryQuery>) => {
  let rows = selectUserSends(platform.db, userId);
  if (query.type) rows = rows.where('sends.type', '=', Number(query.type) as 1 | 2);
  for (const bound of dateBounds('sends.created_at', query, await timeZoneOf(platform.db, userId))) {
    rows = rows.where(bound);
  }
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'sends.created_at', subject: 'sends.subject', deliver_at: 'sends.deliver_at' },
    searchColumns: ['sends.subject', 'sends.list_names', 'sends.from_address', 'sends.from_name'],
    tieBreaker: 'sends.id',
  });
  const [accounts, abParts] = await Promise.all([
    accountsOf(platform, userId),
    abTestPartsOf(platform, userId, page.data),
  ]);
  return {
    data: page.data.map((row) => ({
      ...toHistoryRecord(row, row.account_id === null ? undefined : accounts.get(row.account_id)),
      ab_test: abParts.get(row.id) ?? null,
    })),
    meta: page.meta,
  };
};

/**
 * A send's figures as every screen counts them (R33, contracts `figures.ts`): its counters,
 * and its bounces split into hard and soft.
 */
const sendCountsOf = async (platform: TPlatform, row: TSendRow): Promise<TSendCounts> => {
  const figures = figuresOfSend(row, await findBounceSplit(platform.db, row.id));
  return {
    recipients_count: figures.recipients,
    sent_count: figures.accepted,
    delivered_count: figures.delivered,
    failed_count: row.failed_count,
    bounced_hard_count: figures.bouncedHard,
    bounced_soft_count: figures.bouncedSoft,
    complained_count: figures.complained,
    unsubscribed_count: figures.unsubscribed,
    clicked_count: figures.clicked,
    opened_count: figures.opened,
    unknown_count: figures.unknown,
  };
};

/**
 * `GET /api/history/sends/{id}/figures` (issue 48 §2): any send's figures by the one
 * definition (contracts `figures.ts`), the same numbers History shows for a send of its own.
 */
export const sendFigures = async (platform: TPlatform, userId: number, id: number) => {
  const row = await findSendForFigures(platform.db, userId, id);
  if (!row) throw notFound('This send does not exist.');
  return {
    send_id: row.id,
    status: row.status,
    subject: row.subject,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    figures: figuresOfSend(row, await findBounceSplit(platform.db, row.id), row.deferred),
  };
};

export const historyCounts = async (platform: TPlatform, userId: number, id: number): Promise<THistoryCounts> => {
  const row = await requireSend(platform, userId, id);
  const account = await accountOf(platform, userId, row.account_id);
  return {
    status: true,
    counts: await sendCountsOf(platform, row),
    isSmtp: account?.provider === 'smtp' && !isGmail(account),
    isGmail: isGmail(account),
  };
};

const eventsQuery = (
  platform: TPlatform,
  sendId: number,
  query: Pick<z.output<typeof ZHistoryDetailQuery>, 'event_type'>,
) => {
  let rows = selectSendEvents(platform.db, sendId);
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
    send: {
      ...toHistoryRecord(send, await accountOf(platform, userId, send.account_id)),
      ab_test: (await abTestPartsOf(platform, userId, [send])).get(send.id) ?? null,
    },
    counts: await sendCountsOf(platform, send),
    abTest: await abTestResultOf(platform, userId, send),
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
  yield `\uFEFF${stringify([['Recipient', 'Event', 'Date', 'Detail', 'Counted']])}`;
  const slices = slicesAfter((after) =>
    eventsQuery(platform, id, query).where('id', '>', after).orderBy('id').limit(EXPORT_SLICE).execute(),
  );
  for await (const rows of slices) {
    const kept = search
      ? rows.filter((row) => row.recipient.toLowerCase().includes(search) || row.detail?.toLowerCase().includes(search))
      : rows;
    yield stringify(
      kept.map((row) =>
        // Counted: whether the event moves a figure (a repeated open or click does not).
        [
          row.recipient,
          row.event_type,
          row.created_at.toISOString(),
          row.detail ?? '',
          row.is_first ? 'yes' : 'no',
        ].map(safeCell),
      ),
    );
  }
}
