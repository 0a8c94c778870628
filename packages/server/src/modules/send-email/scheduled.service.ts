import type { TScheduledEdit, TScheduledEmail, TSendEmailForm, ZScheduledQuery } from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { dateBounds } from '../../platform/date-filter';
import { DomainError, fieldError, HttpError, isDomainError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { requireAccountsAllowed } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import {
  changeScheduledSend,
  createEngagementResend,
  createSend,
  deleteUserSend,
  engagementCount,
  findUserSend,
  fromHeader,
  PLAN_WITHOUT_ACCOUNTS,
  selectUserSends,
  setScheduledStatus,
  type TSendRow,
} from '../delivery/delivery.service';
import { checkSendForm } from './send-email.service';

/**
 * Scheduled Emails (spec §2) with the state changes spec §4 allows (0 Pending may be edited
 * and cancelled while it has not started, 2 Cancelled may have the cancel removed, 1 Sent
 * neither; a send that is not running may be deleted), and the History rows' "Send again"
 * and "Edit" (a new send starting from an old one).
 */

const requireSend = async (platform: TPlatform, userId: number, id: number, accountId?: number) => {
  const row = await findUserSend(platform.db, userId, id);
  if (!row || (accountId !== undefined && row.account_id !== accountId)) throw notFound('This send does not exist.');
  return row;
};

/**
 * What "Send again" sends: the old send's account, sender, lists and message. The pre-send
 * check of History's Send again reads the same (issue 45 §4), so what was checked is what goes.
 */
export const resendContentOf = async (platform: TPlatform, userId: number, accountId: number, id: number) => {
  const row = await requireSend(platform, userId, id, accountId);
  return {
    accountId,
    fromName: row.from_name,
    fromAddress: row.from_address,
    subject: row.subject,
    html: row.html,
    listIds: row.list_ids.map(Number),
    cc: row.cc,
    bcc: row.bcc,
    replyTo: row.reply_to,
    trackOpens: row.track_opens,
    trackClicks: row.track_clicks,
  };
};

/** History's Send again: a new send of the old one's content, its tracking as it was. */
export const resendFromHistory = async (platform: TPlatform, userId: number, accountId: number, id: number) =>
  createSend(platform, userId, await resendContentOf(platform, userId, accountId, id));

/** Re-send by engagement (issue 31 §3): how many it would reach, shown before the user confirms. */
export const engagementCountOf = (
  platform: TPlatform,
  userId: number,
  id: number,
  query: { audience: 'not-opened' | 'opened' | 'clicked'; linkId?: number },
) => engagementCount(platform, userId, id, query.audience, query.linkId ?? null);

/**
 * Re-send by engagement: a new send of the message to those who did not open it, opened it,
 * or clicked (a link). Refused when nobody is left to send to, so no empty send is recorded.
 */
export const resendByEngagement = async (
  platform: TPlatform,
  userId: number,
  id: number,
  input: { audience: 'not-opened' | 'opened' | 'clicked'; linkId?: number; subject?: string },
) => {
  const { count } = await engagementCount(platform, userId, id, input.audience, input.linkId ?? null);
  if (count === 0)
    throw new HttpError(422, 'Nobody is left to send to: no recipient of this send matches.', 'EMPTY_AUDIENCE');
  const sendId = await createEngagementResend(platform, userId, id, { ...input, linkId: input.linkId ?? null });
  return { sendId, count };
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
      document: row.document ?? null,
      from_address: row.from_address,
      track_opens: row.track_opens,
      track_clicks: row.track_clicks,
      status: scheduledStatus(row),
      editable: row.type === 2 && row.status === 'scheduled' && row.started_at === null,
    },
  };
};

/** Spec §3 scheduled email status: 0 pending, 1 sent (started), 2 cancelled. */
const scheduledStatus = (row: TSendRow): 0 | 1 | 2 => {
  if (row.status === 'cancelled') return row.started_at ? 1 : 2;
  return row.status === 'scheduled' ? 0 : 1;
};

const toScheduled = (row: TSendRow): TScheduledEmail => ({
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
  let rows = selectUserSends(platform.db, userId).where('sends.type', '=', 2);
  for (const bound of dateBounds('sends.deliver_at', query, await timeZoneOf(platform.db, userId))) {
    rows = rows.where(bound);
  }
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'sends.created_at', deliver_at: 'sends.deliver_at', subject: 'sends.subject' },
    searchColumns: ['sends.subject', 'sends.list_names'],
    tieBreaker: 'sends.id',
  });
  return { data: page.data.map(toScheduled), meta: page.meta };
};

const notNow = (row: TSendRow, what: string) =>
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
  const isEdited = await changeScheduledSend(platform.db, userId, id, {
    subject: edit.subject,
    html: edit.message,
    cc: edit.cc,
    bcc: edit.bcc,
    replyTo: edit.reply_to,
    deliverAt,
    sender: { fromName: row.from_name, fromAddress: row.from_address },
  });
  if (!isEdited) throw notNow(row, 'edited');
};

/**
 * Edit Scheduled Email with the whole Send Email form: the same checks as a send (the
 * account's kind, the sender, lists of that account, the plan), the delivery time required
 * and ahead; only while pending and not started.
 */
export const saveScheduledForm = async (platform: TPlatform, userId: number, id: number, form: TSendEmailForm) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2) throw notFound('This scheduled email does not exist.');
  const checked = await checkSendForm(platform, userId, { ...form, sendLater: true });
  // A plan without sending accounts keeps the test inbox only, on every path (R23).
  await requireAccountsAllowed(platform, platform.db, userId, checked.driver).catch((error: unknown) => {
    throw isDomainError(error, 'upgrade-required') ? new DomainError('upgrade-required', PLAN_WITHOUT_ACCOUNTS) : error;
  });
  const isEdited = await changeScheduledSend(platform.db, userId, id, {
    account_id: checked.accountId,
    sender: { fromName: checked.fromName, fromAddress: checked.fromAddress },
    subject: form.subject,
    html: form.message,
    document: form.document,
    cc: form.cc,
    bcc: form.bcc,
    replyTo: form.reply,
    list_ids: checked.lists.map((list) => list.id),
    list_names: checked.lists.map((list) => list.name).join(', '),
    deliverAt: checked.deliverAt!,
    track_opens: form.trackOpens,
    track_clicks: form.trackClicks,
  });
  if (!isEdited) throw notNow(row, 'edited');
};

export const cancelScheduled = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2 || !(await setScheduledStatus(platform.db, userId, id, 'scheduled', 'cancelled'))) {
    throw notNow(row, 'cancelled');
  }
};

export const removeCancel = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (row.type !== 2 || !(await setScheduledStatus(platform.db, userId, id, 'cancelled', 'scheduled'))) {
    throw notNow(row, 'restored');
  }
};

export const deleteScheduled = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireSend(platform, userId, id);
  if (!(await deleteUserSend(platform.db, userId, id))) {
    throw new HttpError(409, 'This email is being sent: cancel it first, then delete it.', 'SEND_STATE');
  }
  return row.id;
};
