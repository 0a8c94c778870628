import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import {
  ZAddMemberRequest,
  ZBulkDeleteMembersRequest,
  ZBulkMembersRequest,
  ZBulkMembersResponse,
  ZClearGenericRequest,
  ZCreateListRequest,
  ZDeleteCheckResponse,
  ZDeleteListRequest,
  ZDeleteMemberRequest,
  ZGenericControlResponse,
  ZGenericEmailsResponse,
  ZImportFromProviderRequest,
  ZListImport,
  ZListImportResponse,
  ZListPage,
  ZListQuery,
  ZMailingList,
  ZMember,
  ZMemberByEmailRequest,
  ZMemberPage,
  ZMemberQuery,
  ZPostCsvRequest,
  ZPostCsvResponse,
  ZUpdateListRequest,
  ZUpdateMemberRequest,
  ZUpsertMemberRequest,
  ZUpsertMemberResponse,
} from './lists';
import { ZMemberConsent, ZSignupSettings, ZUpdateSignupSettings } from './signup';

const ZListIdParams = z.object({ listId: z.coerce.number().int().positive() });
const ok = <T extends z.ZodRawShape>(shape: T) => z.object({ status: z.literal(true), message: z.string(), ...shape });

/** Spec §7's list calls; where the spec shows no path, the ones ARCHITECTURE.md names. */
export const listsApi = {
  list: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists',
    query: ZListQuery,
    response: ZListPage,
  }),
  create: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists',
    body: ZCreateListRequest,
    response: ok({ data: ZMailingList }),
  }),
  info: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists/get-list-info/:id',
    params: ZIdParams,
    response: ok({ data: ZMailingList }),
  }),
  update: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/update/list/:id',
    params: ZIdParams,
    body: ZUpdateListRequest,
    response: ZStatusMessage,
  }),
  checkDelete: defineRoute({
    method: 'POST',
    path: '/mailing-lists/check-delete',
    body: ZDeleteListRequest,
    response: ZDeleteCheckResponse,
  }),
  delete: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/delete',
    body: ZDeleteListRequest,
    response: ZStatusMessage,
  }),
  importFromProvider: defineRoute({
    method: 'POST',
    path: '/mailing-lists/import-lists-from-provider',
    body: ZImportFromProviderRequest,
    response: ZStatusMessage,
  }),
  genericControl: defineRoute({
    method: 'GET',
    path: '/mailing-lists/get-emails-for-generic-control/:id',
    params: ZIdParams,
    response: ZGenericControlResponse,
  }),
  clearGeneric: defineRoute({
    method: 'POST',
    path: '/mailing-lists/clear-generic-emails',
    body: ZClearGenericRequest,
    response: ZStatusMessage,
  }),
  genericEmails: defineRoute({ method: 'GET', path: '/ajax/get-generic-emails', response: ZGenericEmailsResponse }),
  /** Rows the browser parsed from a small file. */
  postCsv: defineRoute({
    method: 'POST',
    path: '/mailing-lists/ajax/post-csv',
    body: ZPostCsvRequest,
    response: ZPostCsvResponse,
  }),

  members: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists/:listId/members',
    params: ZListIdParams,
    query: ZMemberQuery,
    response: ZMemberPage,
  }),
  member: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists/get-member-info/:id',
    params: ZIdParams,
    response: ok({ data: ZMember }),
  }),
  updateMember: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/update/member/:id',
    params: ZIdParams,
    body: ZUpdateMemberRequest,
    response: ZStatusMessage,
  }),
  addMember: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/add-member',
    body: ZAddMemberRequest,
    response: ok({ data: ZMember }),
  }),
  deleteMember: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/delete-member',
    body: ZDeleteMemberRequest,
    response: ZStatusMessage,
  }),
  bulkDeleteMembers: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/bulk-delete-member',
    body: ZBulkDeleteMembersRequest,
    response: ZStatusMessage,
  }),

  // --- by address, for integrators (issue 48 §2) ---

  /** Adds or updates one member by address (the list's double opt-in applies to a new address). */
  upsertMember: defineRoute({
    scope: 'lists:write',
    method: 'PUT',
    path: '/mailing-lists/:listId/members',
    params: ZListIdParams,
    body: ZUpsertMemberRequest,
    response: ZUpsertMemberResponse,
  }),
  unsubscribeMember: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/:listId/members/unsubscribe',
    params: ZListIdParams,
    body: ZMemberByEmailRequest,
    response: ZStatusMessage,
  }),
  removeMember: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/:listId/members/remove',
    params: ZListIdParams,
    body: ZMemberByEmailRequest,
    response: ZStatusMessage,
  }),
  /** Up to 10,000 members in one call, with a result per row. */
  bulkMembers: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/:listId/members/bulk',
    params: ZListIdParams,
    body: ZBulkMembersRequest,
    response: ZBulkMembersResponse,
  }),

  /** Multipart: the `mapping` JSON part, then the `file` part (read in that order). */
  startImport: defineRoute({
    scope: 'lists:write',
    method: 'POST',
    path: '/mailing-lists/:listId/imports',
    params: ZListIdParams,
    response: ZListImportResponse,
  }),
  activeImports: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists/imports',
    query: z.object({ active: z.string().optional() }),
    response: z.object({ data: z.array(ZListImport) }),
  }),
  import: defineRoute({
    scope: 'lists:read',
    method: 'GET',
    path: '/mailing-lists/imports/:id',
    params: ZIdParams,
    response: z.object({ data: ZListImport }),
  }),
  /** The list's members with their consent records, a CSV download. */
  exportMembers: defineRoute({
    method: 'GET',
    path: '/mailing-lists/:listId/export',
    params: ZListIdParams,
    response: z.string(),
  }),
  /** A member's consent records, newest first (an imported member's is its import). */
  memberConsent: defineRoute({
    method: 'GET',
    path: '/mailing-lists/get-member-consent/:id',
    params: ZIdParams,
    response: z.object({ status: z.literal(true), data: z.array(ZMemberConsent) }),
  }),
  /** The list's signup form: fields, double opt-in, confirmation email, the hosted page and the snippet. */
  signupForm: defineRoute({
    method: 'GET',
    path: '/mailing-lists/:listId/signup-form',
    params: ZListIdParams,
    response: ok({ data: ZSignupSettings }),
  }),
  updateSignupForm: defineRoute({
    method: 'POST',
    path: '/mailing-lists/:listId/signup-form',
    params: ZListIdParams,
    body: ZUpdateSignupSettings,
    response: ok({ data: ZSignupSettings }),
  }),
  /** The skipped rows of an import, a CSV download (a document, not JSON). */
  skippedReport: defineRoute({
    method: 'GET',
    path: '/mailing-lists/imports/:id/skipped',
    params: ZIdParams,
    response: z.string(),
  }),
};
