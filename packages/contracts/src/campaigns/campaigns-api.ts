/**
 * The campaign calls (spec: the drip document's routes), the wizard's and the views', each with
 * its request and answer; the shapes they carry are in `campaigns.ts`.
 */
import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';
import {
  MEMBERS_LIST_PER_PAGE,
  ZCampaignAccount,
  ZCampaignCounts,
  ZCampaignDraft,
  ZCampaignEmail,
  ZCampaignFailure,
  ZCampaignGeneral,
  ZCampaignListQuery,
  ZCampaignMember,
  ZCampaignMemberRow,
  ZCampaignMembersQuery,
  ZCampaignOptions,
  ZCampaignRecipientLists,
  ZCampaignRecipients,
  ZCampaignRow,
  ZCampaignSettings,
  ZCampaignStart,
  ZRecipientHistoryItem,
  ZRecipientsSummary,
  ZSequence,
  ZTemporary,
} from './campaigns';
import { ZDailyPlan } from './schedule';

const campaignId = z.object({ id: z.coerce.number().int().positive() });
const ZStatus = ZStatusMessage;

export const campaignsApi = {
  list: defineRoute({
    method: 'GET',
    path: '/campaigns',
    query: ZCampaignListQuery,
    response: pagedResponse(ZCampaignRow),
  }),
  listStatistics: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/list-statistics',
    response: z.object({
      status: z.boolean(),
      days: z.array(z.string()),
      sent: z.array(z.number().int()),
      delivered: z.array(z.number().int()),
      opened: z.array(z.number().int()),
      clicked: z.array(z.number().int()),
    }),
  }),
  setStatus: defineRoute({
    method: 'POST',
    path: '/campaigns/save-data/campaign-status/:id',
    params: campaignId,
    body: z.object({ status: z.boolean() }),
    response: ZStatus,
  }),
  saveStart: defineRoute({
    method: 'PUT',
    path: '/campaigns/save-campaign/1',
    body: ZCampaignStart,
    response: ZStatus.extend({ temporaryKey: z.string(), id: z.number().int() }),
  }),
  saveRecipients: defineRoute({
    method: 'PUT',
    path: '/campaigns/save-campaign/2',
    body: ZCampaignRecipients,
    response: ZStatus.extend(ZRecipientsSummary.shape),
  }),
  /** Recipients from the user's mailing lists (beyond the spec; path not shown there). */
  addRecipientLists: defineRoute({
    method: 'POST',
    path: '/campaigns/recipient-lists',
    body: ZCampaignRecipientLists,
    response: ZStatus.extend(ZRecipientsSummary.shape),
  }),
  saveSequence: defineRoute({
    method: 'PUT',
    path: '/campaigns/save-campaign/3',
    body: ZTemporary.extend(ZSequence.shape),
    response: ZStatus,
  }),
  savePreview: defineRoute({ method: 'PUT', path: '/campaigns/save-campaign/4', body: ZTemporary, response: ZStatus }),
  saveOptions: defineRoute({
    method: 'PUT',
    path: '/campaigns/save-campaign/5',
    body: ZTemporary.extend({ options: ZCampaignOptions }),
    response: ZStatus,
  }),
  finish: defineRoute({
    method: 'PUT',
    path: '/campaigns/save-campaign/6',
    body: ZTemporary,
    response: ZStatus.extend({ id: z.number().int() }),
  }),
  temporaryData: defineRoute({
    method: 'POST',
    path: '/campaigns/get-temporary-data',
    body: z.object({ temporaryKey: z.string().min(1).max(64) }),
    response: z.object({ status: z.boolean(), data: ZCampaignDraft }),
  }),
  /** `/campaigns/continue/{id}`: an unsaved campaign's key, to resume it. */
  continue: defineRoute({
    method: 'GET',
    path: '/campaigns/continue/:id',
    params: campaignId,
    response: z.object({ status: z.boolean(), temporaryKey: z.string() }),
  }),
  previewRecipients: defineRoute({
    method: 'POST',
    path: '/campaigns/get-preview-recipients',
    body: ZTemporary,
    response: z.object({
      status: z.boolean(),
      recipients: z.array(
        z.object({ email: z.string(), name: z.string(), variables: z.record(z.string(), z.string()) }),
      ),
      total: z.number().int(),
    }),
  }),
  /** Spec §7 (temporary, index): removes the file at `index` of the list of files, or every source without one. */
  removeRecipients: defineRoute({
    method: 'POST',
    path: '/campaigns/remove-recipients',
    body: ZTemporary.extend({ index: z.coerce.number().int().min(0).max(10_000).optional() }),
    response: ZRecipientsSummary.omit({ added: true, skipped: true }).extend({
      status: z.boolean(),
      removed: z.number().int(),
    }),
  }),
  accountInformation: defineRoute({
    method: 'GET',
    path: '/campaigns/get-account-information',
    response: z.object({
      status: z.boolean(),
      /** The account a new campaign starts with (the primary one, else the first). */
      account: ZCampaignAccount.nullable(),
      accountData: z.array(ZCampaignAccount),
    }),
  }),
  errors: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/errors/:id',
    params: campaignId,
    query: pageQuery({ columns: ['failed_at', 'email'], defaultColumn: 'failed_at', defaultOrder: 'desc' }),
    response: pagedResponse(ZCampaignFailure).extend({
      /** Recipients stopped before their last email, by why. */
      stopped: z.array(z.object({ reason: z.string(), count: z.number().int() })),
      /** Why the circuit breaker stopped the campaign, while it is stopped; null otherwise. */
      breaker_reason: z.string().nullable(),
    }),
  }),
  /** Spec §7: the members-list variant, `?page` (2 a page to begin with, spec §9). */
  membersList: defineRoute({
    method: 'GET',
    path: '/drip-campaign/campaign/get-members/:id',
    params: campaignId,
    query: pageQuery({
      columns: ['email', 'created_at'],
      defaultColumn: 'email',
      defaultOrder: 'asc',
      defaultPerPage: MEMBERS_LIST_PER_PAGE,
    }),
    response: pagedResponse(ZCampaignMemberRow),
  }),
  /** Spec §7: deletes a member of the campaign, by a GET as the spec has it (with the CSRF token all the same). */
  deleteMember: defineRoute({
    method: 'GET',
    path: '/drip-campaign/campaign/subscriber/:id/delete/:memberId',
    params: z.object({ id: z.coerce.number().int().positive(), memberId: z.coerce.number().int().positive() }),
    response: ZStatus,
    changesState: true,
  }),
  general: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/general/:id',
    params: campaignId,
    response: z.object({ status: z.boolean(), campaign: ZCampaignGeneral }),
  }),
  overview: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/overview/:id',
    params: campaignId,
    response: z.object({ status: z.boolean(), campaign: ZCampaignCounts }),
  }),
  emails: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/emails/:id',
    params: campaignId,
    response: z.object({ status: z.boolean(), emails: z.array(ZCampaignEmail), dailyPlan: ZDailyPlan }),
  }),
  variables: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/variables/:id',
    params: campaignId,
    response: z.object({ variables: z.array(z.string()) }),
  }),
  members: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/members/:id',
    params: campaignId,
    query: ZCampaignMembersQuery,
    response: pagedResponse(ZCampaignMember),
  }),
  recipientHistory: defineRoute({
    method: 'GET',
    path: '/campaigns/get-data/recipient-history/:id',
    params: campaignId,
    response: z.object({ status: z.boolean(), history: z.array(ZRecipientHistoryItem) }),
  }),
  saveSettings: defineRoute({
    method: 'POST',
    path: '/campaigns/save-data/settings/:id',
    params: campaignId,
    body: ZCampaignSettings,
    response: ZStatus,
  }),
  saveEmails: defineRoute({
    method: 'POST',
    path: '/campaigns/save-data/emails/:id',
    params: campaignId,
    body: z.object({ emails: ZSequence.shape.drips, dailyPlan: ZDailyPlan }),
    response: ZStatus,
  }),
  recipientStatus: defineRoute({
    method: 'POST',
    path: '/campaigns/save-data/recipient-status/:id',
    params: campaignId,
    body: z.object({ emailId: z.coerce.number().int().positive(), status: z.boolean() }),
    response: ZStatus,
  }),
  /** Deletes saved or unsaved campaigns (the list's checkboxes, an unsaved campaign's Delete); path not shown in the spec. */
  deleteCampaigns: defineRoute({
    method: 'POST',
    path: '/campaigns/delete',
    body: z.object({ ids: z.array(z.coerce.number().int().positive()).min(1).max(1000) }),
    response: ZStatus,
  }),
  deleteRecipients: defineRoute({
    method: 'POST',
    path: '/campaigns/save-data/delete-recipients/:id',
    params: campaignId,
    body: z.object({ recipients: z.array(z.coerce.number().int().positive()).min(1).max(10_000) }),
    response: ZStatus,
  }),
};
