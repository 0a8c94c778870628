import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import {
  LIST_MESSAGES,
  ZAddMemberRequest,
  ZBulkDeleteMembersRequest,
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
  ZMemberPage,
  ZMemberQuery,
  ZPostCsvRequest,
  ZPostCsvResponse,
  ZStatusMessage,
  ZUpdateListRequest,
  ZUpdateMemberRequest,
} from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../platform/errors';
import type { TModuleOptions } from '../module';
import { findImport, importReportChunks, listActiveImports, startImport, type TUploadPart } from './imports.service';
import {
  checkListUsage,
  clearGenericEmails,
  createList,
  deleteList,
  findGenericEmails,
  importListsFromProvider,
  importParsedRows,
  listLists,
  requireList,
  toList,
  updateList,
} from './lists.service';
import { addMember, bulkDeleteMembers, deleteMember, getMember, listMembers, updateMember } from './members.service';

const ZId = z.object({ id: z.coerce.number().int().positive() });
const ZListId = z.object({ listId: z.coerce.number().int().positive() });
const ok = <T extends z.ZodRawShape>(shape: T) => z.object({ status: z.literal(true), message: z.string(), ...shape });
const tags = ['lists'];

/** Member and list edits: generous for people, a wall for scripts. */
const editLimit = { rateLimit: { name: 'list-edit', limit: 300, windowSeconds: 600, per: 'user' as const } };

export const listRoutes: FastifyPluginAsyncZod<TModuleOptions> = async (app, { platform, hooks }) => {
  await app.register(multipart, {
    limits: { fileSize: platform.config.listImportMaxBytes, files: 1, fields: 5, fieldSize: 64 * 1024 },
  });
  const userOf = (request: { session?: { userId: number } | null }) => request.session!.userId;

  app.get(
    '/mailing-lists',
    { schema: { tags, querystring: ZListQuery, response: { 200: ZListPage } } },
    async (request) => listLists(platform, userOf(request), request.query),
  );

  app.post(
    '/mailing-lists',
    { config: editLimit, schema: { tags, body: ZCreateListRequest, response: { 200: ok({ data: ZMailingList }) } } },
    async (request) => ({
      status: true as const,
      message: LIST_MESSAGES.listCreated,
      data: await createList(platform, userOf(request), request.body),
    }),
  );

  app.get(
    '/mailing-lists/get-list-info/:id',
    { schema: { tags, params: ZId, response: { 200: ok({ data: ZMailingList }) } } },
    async (request) => ({
      status: true as const,
      message: '',
      data: toList(await requireList(platform.db, userOf(request), request.params.id)),
    }),
  );

  app.post(
    '/mailing-lists/update/list/:id',
    { config: editLimit, schema: { tags, params: ZId, body: ZUpdateListRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      await updateList(platform, userOf(request), request.params.id, request.body);
      return { status: true, message: LIST_MESSAGES.listSaved };
    },
  );

  app.post(
    '/mailing-lists/check-delete',
    { schema: { tags, body: ZDeleteListRequest, response: { 200: ZDeleteCheckResponse } } },
    async (request) => ({
      status: true as const,
      campaigns: await checkListUsage(platform, hooks.listUsageChecks, userOf(request), request.body.listId),
    }),
  );

  app.post(
    '/mailing-lists/delete',
    { config: editLimit, schema: { tags, body: ZDeleteListRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      await deleteList(platform, userOf(request), request.body);
      return { status: true, message: LIST_MESSAGES.listDeleted };
    },
  );

  app.post(
    '/mailing-lists/import-lists-from-provider',
    {
      config: { rateLimit: { name: 'list-sync', limit: 10, windowSeconds: 600, per: 'user' } },
      schema: { tags, body: ZImportFromProviderRequest, response: { 200: ZStatusMessage } },
    },
    async (request) => {
      const { lists, members } = await importListsFromProvider(platform, userOf(request), request.body.accountId);
      return {
        status: true,
        message: `Synced ${lists} mailing ${lists === 1 ? 'list' : 'lists'} and ${members} ${members === 1 ? 'member' : 'members'} from Mailgun.`,
      };
    },
  );

  app.get(
    '/mailing-lists/get-emails-for-generic-control/:id',
    { schema: { tags, params: ZId, response: { 200: ZGenericControlResponse } } },
    async (request) => {
      const emails = await findGenericEmails(platform, userOf(request), request.params.id);
      return {
        status: true as const,
        emails,
        total: emails.length,
        message: emails.length === 0 ? LIST_MESSAGES.noGeneric : LIST_MESSAGES.genericWarning,
      };
    },
  );

  app.post(
    '/mailing-lists/clear-generic-emails',
    { config: editLimit, schema: { tags, body: ZClearGenericRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      const removed = await clearGenericEmails(platform, userOf(request), request.body.listId, request.body.emails);
      return {
        status: true,
        message: `${LIST_MESSAGES.genericCleared} (${removed} ${removed === 1 ? 'address' : 'addresses'})`,
      };
    },
  );

  app.get('/ajax/get-generic-emails', { schema: { tags, response: { 200: ZGenericEmailsResponse } } }, async () => ({
    status: true as const,
    emails: platform.config.genericEmails,
    importMaxBytes: platform.config.listImportMaxBytes,
  }));

  app.post(
    '/mailing-lists/ajax/post-csv',
    {
      config: { rateLimit: { name: 'list-import', limit: 60, windowSeconds: 600, per: 'user' } },
      bodyLimit: 8 * 1024 * 1024,
      schema: { tags, body: ZPostCsvRequest, response: { 200: ZPostCsvResponse } },
    },
    async (request) => {
      const counts = await importParsedRows(platform, userOf(request), request.body);
      const saved = counts.added + counts.updated;
      return {
        status: saved > 0,
        message:
          saved > 0
            ? `${counts.added} added, ${counts.updated} updated, ${counts.skipped} skipped.`
            : 'No address in this file could be placed on the list.',
        counts,
      };
    },
  );

  // --- members ---

  app.get(
    '/mailing-lists/:listId/members',
    { schema: { tags, params: ZListId, querystring: ZMemberQuery, response: { 200: ZMemberPage } } },
    async (request) => listMembers(platform, userOf(request), request.params.listId, request.query),
  );

  app.get(
    '/mailing-lists/get-member-info/:id',
    { schema: { tags, params: ZId, response: { 200: ok({ data: ZMember }) } } },
    async (request) => ({
      status: true as const,
      message: '',
      data: await getMember(platform, userOf(request), request.params.id),
    }),
  );

  app.post(
    '/mailing-lists/update/member/:id',
    { config: editLimit, schema: { tags, params: ZId, body: ZUpdateMemberRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      await updateMember(platform, userOf(request), request.params.id, request.body);
      return { status: true, message: LIST_MESSAGES.memberSaved };
    },
  );

  app.post(
    '/mailing-lists/add-member',
    { config: editLimit, schema: { tags, body: ZAddMemberRequest, response: { 200: ok({ data: ZMember }) } } },
    async (request) => ({
      status: true as const,
      message: LIST_MESSAGES.memberAdded,
      data: await addMember(platform, userOf(request), request.body),
    }),
  );

  app.post(
    '/mailing-lists/delete-member',
    { config: editLimit, schema: { tags, body: ZDeleteMemberRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      const { listId, id, deleteMailgun } = request.body;
      await deleteMember(platform, userOf(request), { listId, memberId: id, deleteMailgun });
      return { status: true, message: LIST_MESSAGES.memberDeleted };
    },
  );

  app.post(
    '/mailing-lists/bulk-delete-member',
    { config: editLimit, schema: { tags, body: ZBulkDeleteMembersRequest, response: { 200: ZStatusMessage } } },
    async (request) => {
      const deleted = await bulkDeleteMembers(platform, userOf(request), request.body);
      return { status: true, message: `${LIST_MESSAGES.membersDeleted} (${deleted})` };
    },
  );

  // --- imports of large files ---

  app.post(
    '/mailing-lists/:listId/imports',
    {
      config: { rateLimit: { name: 'list-import', limit: 60, windowSeconds: 600, per: 'user' } },
      schema: { tags, params: ZListId, response: { 200: ZListImportResponse } },
    },
    async (request) => ({
      status: true as const,
      message: LIST_MESSAGES.importQueued,
      data: await startImport(
        platform,
        userOf(request),
        request.params.listId,
        request.parts() as AsyncIterable<TUploadPart>,
      ),
    }),
  );

  app.get(
    '/mailing-lists/imports',
    {
      schema: {
        tags,
        querystring: z.object({ active: z.string().optional() }),
        response: { 200: z.object({ data: z.array(ZListImport) }) },
      },
    },
    async (request) => ({ data: await listActiveImports(platform, userOf(request)) }),
  );

  app.get(
    '/mailing-lists/imports/:id',
    { schema: { tags, params: ZId, response: { 200: z.object({ data: ZListImport }) } } },
    async (request) => ({ data: await findImport(platform, userOf(request), request.params.id) }),
  );

  app.get('/mailing-lists/imports/:id/skipped', { schema: { tags, params: ZId } }, async (request, reply) => {
    const found = await findImport(platform, userOf(request), request.params.id);
    if (!found.has_report) throw notFound('This import skipped no rows.');
    const stream = Readable.from(importReportChunks(platform, found.id));
    const name = `skipped-rows-${found.id}.csv`;
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(stream);
  });
};
