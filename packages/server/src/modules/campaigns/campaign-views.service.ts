import {
  CAMPAIGN_MESSAGES,
  renderMergeFields,
  type TCampaignCounts,
  type TCampaignGeneral,
  type TCampaignMember,
  type TCampaignRow,
  type TDailyPlan,
  type ZCampaignMembersQuery,
  type ZCampaignSettings,
  type ZRecipientHistoryItem,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { listAccountRows } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { dailyCapOf, resumeBreakerGroup } from '../delivery/delivery.service';
import { resolveSender } from '../send-email/send-email.service';
import { campaignBreakerGroup } from './campaign-breaker.service';
import { tickCampaignsJob } from './campaigns.jobs';
import {
  campaignFigures,
  campaignRowsQuery,
  countRecipients,
  dailyMessageFigures,
  deleteCampaignRows,
  deleteRecipientRows,
  findRecipient,
  messagesOfRecipient,
  recipientRowsQuery,
  setRecipientPaused,
  stepsWithCounts,
  updateCampaign,
} from './campaigns.repository';
import { requireCampaign, type TStepInput, writeSequence } from './campaigns.service';

/**
 * The saved campaigns' screens: the list and its chart, and a campaign's pages (general,
 * overview, e-mails with Edit Sequence, settings, recipients and each one's history), with
 * Start/Stop, pausing a recipient and deleting.
 */

type TListQuery = {
  page: number;
  per_page: number;
  column: 'created_at' | 'title';
  order: 'asc' | 'desc';
  search?: string;
  temporary: number;
};
type TEmailsInput = { emails: TStepInput[]; dailyPlan: TDailyPlan };
type TSettingsInput = z.output<typeof ZCampaignSettings>;
type TMembersQuery = z.output<typeof ZCampaignMembersQuery>;

const statusOf = (row: { is_draft: boolean; running: boolean; schedule_at: Date | null; active: number }) =>
  row.is_draft
    ? ('draft' as const)
    : row.active === 0
      ? ('finished' as const)
      : !row.running
        ? ('paused' as const)
        : row.schedule_at && row.schedule_at.getTime() > Date.now()
          ? ('scheduled' as const)
          : ('running' as const);

/** `GET /api/campaigns`: saved campaigns, or with `temporary=1` the unsaved ones. */
export const listCampaigns = async (platform: TPlatform, userId: number, query: TListQuery) => {
  const page = await paginate(campaignRowsQuery(platform.db, userId, query.temporary === 1), query, {
    sortColumns: { created_at: 'campaigns.created_at', title: sql`lower(campaigns.title)` },
    searchColumns: ['campaigns.title'],
    tieBreaker: 'campaigns.id',
  });
  const names = new Map((await listAccountRows(platform.db, userId)).map((account) => [account.id, account.name]));
  return {
    data: page.data.map(
      (row): TCampaignRow => ({
        id: row.id,
        title: row.title || '(untitled)',
        running: row.running,
        status: statusOf(row),
        created_at: row.created_at.toISOString(),
        account_name: row.account_id === null ? null : (names.get(row.account_id) ?? null),
        step: row.step,
        members_count: row.members_count,
        sent_count: row.sent_count,
        opened_count: row.opened_count,
        bounced_count: row.bounced_count,
      }),
    ),
    meta: page.meta,
  };
};

/** `GET /api/campaigns/get-data/list-statistics`: the last 30 days, per day in the user's time zone. */
export const listStatistics = async (platform: TPlatform, userId: number) => {
  const rows = await dailyMessageFigures(platform.db, userId, await timeZoneOf(platform.db, userId));
  return {
    days: rows.map((row) => row.day),
    sent: rows.map((row) => row.sent),
    delivered: rows.map((row) => row.delivered),
    opened: rows.map((row) => row.opened),
    clicked: rows.map((row) => row.clicked),
  };
};

/** Start or stop a saved campaign; a started one is looked at by the scheduler at once. */
export const setCampaignRunning = async (platform: TPlatform, userId: number, id: number, running: boolean) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  if (campaign.is_draft) throw new HttpError(409, 'Finish the campaign first.', 'DRAFT');
  await platform.db.transaction().execute(async (trx) => {
    // Started again, a campaign the circuit breaker stopped is judged anew on what goes from now on.
    await updateCampaign(trx, id, { running, updated_at: new Date(), ...(running ? { breaker_reason: null } : {}) });
    if (running) await resumeBreakerGroup(trx, campaignBreakerGroup(id));
    if (running) await platform.queue.enqueue(tickCampaignsJob, {}, { executor: trx });
  });
  return running ? CAMPAIGN_MESSAGES.started : CAMPAIGN_MESSAGES.stopped;
};

export const campaignGeneral = async (platform: TPlatform, userId: number, id: number): Promise<TCampaignGeneral> => {
  const campaign = await requireCampaign(platform.db, userId, id);
  const [accounts, active] = await Promise.all([
    listAccountRows(platform.db, userId),
    countRecipients(platform.db, id, 'active'),
  ]);
  const account = accounts.find((row) => row.id === campaign.account_id);
  return {
    id: campaign.id,
    title: campaign.title,
    status: campaign.running,
    state: statusOf({ ...campaign, active }),
    schedule_at: campaign.schedule_at?.toISOString() ?? null,
    signature: campaign.signature,
    signature_document: campaign.signature_document ?? null,
    sender_name: campaign.sender_name,
    alias: campaign.alias,
    domain: campaign.from_address.split('@')[1] ?? '',
    provider: account?.provider ?? null,
    account_name: account?.name ?? null,
    mail_per_day: campaign.mail_per_day,
    mail_per_delay: campaign.mail_per_delay,
    account_limit: account ? dailyCapOf(account) : null,
    from: campaign.sender_name ? `${campaign.sender_name} <${campaign.from_address}>` : campaign.from_address,
    track_opens: campaign.track_opens,
    dailyPlan: campaign.daily_plan as TDailyPlan,
    is_draft: campaign.is_draft,
    breaker_reason: campaign.breaker_reason,
  };
};

/** The overview's counts; the page computes the spec's percentages from them. */
export const campaignCounts = async (platform: TPlatform, userId: number, id: number): Promise<TCampaignCounts> => {
  await requireCampaign(platform.db, userId, id);
  return campaignFigures(platform.db, id);
};

/** The E-Mails page: each step with its counts. */
export const campaignEmails = async (platform: TPlatform, userId: number, id: number) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  return { emails: await stepsWithCounts(platform.db, id), dailyPlan: campaign.daily_plan as TDailyPlan };
};

/** `POST /api/campaigns/save-data/emails/{id}`: Edit Sequence on a saved campaign. */
export const saveCampaignEmails = async (platform: TPlatform, userId: number, id: number, input: TEmailsInput) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  await writeSequence(platform, campaign, { steps: input.emails, dailyPlan: input.dailyPlan });
};

export const saveCampaignSettings = async (platform: TPlatform, userId: number, id: number, input: TSettingsInput) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  if (!campaign.account_id) throw new HttpError(409, 'The campaign’s sending account was deleted.', 'NO_ACCOUNT');
  const sender = await resolveSender(platform, userId, {
    account: campaign.account_id,
    from: '',
    senderName: input.from,
    alias: input.alias ?? campaign.alias,
    useSubdomain: campaign.use_subdomain,
  });
  const limit = dailyCapOf(sender.account);
  if (limit !== null && input.mailPerDay > limit) {
    throw new ValidationError({ mailPerDay: [`At most ${limit} a day: the account's own limit.`] });
  }
  await updateCampaign(platform.db, id, {
    title: input.title,
    sender_name: sender.fromName,
    alias: input.alias ?? campaign.alias,
    from_address: sender.fromAddress,
    signature: input.signature.trim(),
    signature_document: input.signatureDocument,
    mail_per_day: input.mailPerDay,
    mail_per_delay: input.mailPerDelay,
    updated_at: new Date(),
  });
};

export const campaignVariables = async (platform: TPlatform, userId: number, id: number) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  return ['email', 'name', ...((campaign.variables as string[]) ?? [])];
};

/** The Recipients page: paged, searched, filtered by what happened to them. */
export const campaignMembers = async (platform: TPlatform, userId: number, id: number, query: TMembersQuery) => {
  await requireCampaign(platform.db, userId, id);
  const page = await paginate(recipientRowsQuery(platform.db, userId, id, query.filter), query, {
    sortColumns: { email: sql`lower(campaign_recipients.email)`, created_at: 'campaign_recipients.created_at' },
    searchColumns: ['campaign_recipients.email', 'campaign_recipients.name'],
    tieBreaker: 'campaign_recipients.id',
  });
  return {
    data: page.data.map(
      (row): TCampaignMember => ({
        id: row.id,
        email: row.email,
        name: row.name,
        status: !row.paused,
        state: row.state,
        stop_reason: row.stop_reason,
        next_position: row.next_position,
        due_at: row.state === 'active' ? row.due_at.toISOString() : null,
        created_at: row.created_at.toISOString(),
        variables: Object.entries((row.variables as Record<string, string>) ?? {}).map(([field_key, field_value]) => ({
          field_key,
          field_value,
        })),
      }),
    ),
    meta: page.meta,
  };
};

type TRecipientHistoryItem = z.infer<typeof ZRecipientHistoryItem>;

/**
 * A recipient's history (spec §2): each message handed over and what became of it, the sent
 * ones with their subject and HTML as this recipient got them (merge fields filled in).
 */
export const recipientHistory = async (platform: TPlatform, userId: number, recipientId: number) => {
  const recipient = await findRecipient(platform.db, userId, recipientId);
  if (!recipient) throw notFound('This recipient does not exist.');
  const messages = await messagesOfRecipient(platform.db, userId, recipientId);
  const merge = {
    email: recipient.email,
    name: recipient.name,
    fields: (recipient.variables as Record<string, string>) ?? {},
  };
  return messages.flatMap((message) => {
    const base = {
      subject: renderMergeFields(message.subject, merge, false),
      body: renderMergeFields(message.body, merge, true),
      order: message.position,
      message: message.error,
    };
    const at = (time: Date) => time.toISOString();
    const events: TRecipientHistoryItem[] = [];
    if (message.status === 'queued') events.push({ ...base, event_type: 'queued', created_at: at(message.created_at) });
    if (message.sent_at) events.push({ ...base, event_type: 'sent', created_at: at(message.sent_at) });
    if (message.delivered_at) events.push({ ...base, event_type: 'delivered', created_at: at(message.delivered_at) });
    if (message.status === 'failed') {
      events.push({ ...base, event_type: 'failed', created_at: at(message.sent_at ?? message.created_at) });
    }
    if (message.opened_at) events.push({ ...base, event_type: 'opened', created_at: at(message.opened_at) });
    if (message.clicked_at) events.push({ ...base, event_type: 'clicked', created_at: at(message.clicked_at) });
    return events;
  });
};

export const setRecipientRunning = async (
  platform: TPlatform,
  userId: number,
  id: number,
  recipientId: number,
  running: boolean,
) => {
  await requireCampaign(platform.db, userId, id);
  if (!(await setRecipientPaused(platform.db, id, recipientId, !running)))
    throw notFound('This recipient does not exist.');
};

/**
 * Deletes campaigns, saved or unsaved, with their recipients and steps. Messages already
 * handed to the sending account are not recalled (they are engine sends); a tick that was
 * about to hand one over rolls back with the missing recipient.
 */
export const deleteCampaigns = async (platform: TPlatform, userId: number, ids: number[]) => {
  const deleted = await deleteCampaignRows(platform.db, userId, ids);
  if (deleted === 0) throw notFound('These campaigns do not exist.');
  return deleted;
};

export const deleteRecipients = async (platform: TPlatform, userId: number, id: number, ids: number[]) => {
  await requireCampaign(platform.db, userId, id);
  return deleteRecipientRows(platform.db, userId, id, ids);
};
