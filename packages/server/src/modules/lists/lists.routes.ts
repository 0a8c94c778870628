import multipart from '@fastify/multipart';
import { genericUnsubscribedMessage, LIST_MESSAGES, listsApi } from '@sendwell/contracts';
import { notFound } from '../../platform/errors';
import { moduleRoutes, perUserLimit, sendCsv, userOf } from '../../platform/routes';
import { uploadParts } from '../../platform/uploads';
import { findImport, importReportChunks, listActiveImports, startImport, type TUploadPart } from './imports.service';
import {
  checkListUsage,
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
import {
  addMember,
  bulkDeleteMembers,
  bulkSaveMembers,
  deleteMember,
  getMember,
  listMembers,
  removeMember,
  unsubscribeGenericMembers,
  unsubscribeMember,
  updateMember,
  upsertMember,
} from './members.service';
import { exportListMembers, getSignupSettings, updateSignupSettings } from './signup-form.service';
import { consentOfMember } from './subscriptions.service';

/** What a multipart upload may carry besides its file: the fields (5 of at most 64 KB) and part headers. */
const MULTIPART_OVERHEAD = 512 * 1024;

/** Member and list edits: generous for people, a wall for scripts. */
const editLimit = perUserLimit('list-edit', 300);

export const listRoutes = moduleRoutes(['lists'], async (serve, platform, app) => {
  await app.register(multipart, {
    limits: { fileSize: platform.config.listImportMaxBytes, files: 1, fields: 5, fieldSize: 64 * 1024 },
  });

  serve(listsApi.list, async (request) => listLists(platform, userOf(request), request.query));

  serve(listsApi.create, { config: editLimit }, async (request) => ({
    status: true as const,
    message: LIST_MESSAGES.listCreated,
    data: await createList(platform, userOf(request), request.body),
  }));

  serve(listsApi.info, async (request) => ({
    status: true as const,
    message: '',
    data: toList(await requireList(platform.db, userOf(request), request.params.id)),
  }));

  serve(listsApi.update, { config: editLimit }, async (request) => {
    await updateList(platform, userOf(request), request.params.id, request.body);
    return { status: true, message: LIST_MESSAGES.listSaved };
  });

  serve(listsApi.checkDelete, async (request) => ({
    status: true as const,
    campaigns: await checkListUsage(platform, platform.hooks.listUsageChecks, userOf(request), request.body.listId),
  }));

  serve(listsApi.delete, { config: editLimit }, async (request) => {
    await deleteList(platform, userOf(request), request.body);
    return { status: true, message: LIST_MESSAGES.listDeleted };
  });

  serve(listsApi.importFromProvider, { config: perUserLimit('list-sync', 10) }, async (request) => {
    const { lists, members } = await importListsFromProvider(platform, userOf(request), request.body.accountId);
    return {
      status: true,
      message: `Synced ${lists} mailing ${lists === 1 ? 'list' : 'lists'} and ${members} ${members === 1 ? 'member' : 'members'} from Mailgun.`,
    };
  });

  serve(listsApi.genericControl, async (request) => {
    const emails = await findGenericEmails(platform, userOf(request), request.params.id);
    return {
      status: true as const,
      emails,
      total: emails.length,
      message: emails.length === 0 ? LIST_MESSAGES.noGeneric : LIST_MESSAGES.genericWarning,
    };
  });

  serve(listsApi.clearGeneric, { config: editLimit }, async (request) => {
    const left = await unsubscribeGenericMembers(platform, userOf(request), request.body.listId, request.body.emails);
    return { status: true, message: genericUnsubscribedMessage(left) };
  });

  serve(listsApi.genericEmails, async () => ({
    status: true as const,
    emails: platform.config.genericEmails,
    importMaxBytes: platform.config.listImportMaxBytes,
  }));

  serve(
    listsApi.postCsv,
    {
      config: perUserLimit('list-import', 60),
      upload: { maxBytes: 8 * 1024 * 1024 },
    },
    async (request) => {
      const { verification, ...counts } = await importParsedRows(platform, userOf(request), request.body, {
        ip: request.ip,
      });
      const saved = counts.added + counts.updated;
      return {
        status: saved > 0,
        message:
          saved > 0
            ? `${counts.added} added, ${counts.updated} updated, ${counts.skipped} skipped.${verification ? ` ${verification.message}` : ''}`
            : 'No address in this file could be placed on the list.',
        counts,
      };
    },
  );

  // --- members ---

  serve(listsApi.members, async (request) =>
    listMembers(platform, userOf(request), request.params.listId, request.query),
  );

  serve(listsApi.member, async (request) => ({
    status: true as const,
    message: '',
    data: await getMember(platform, userOf(request), request.params.id),
  }));

  serve(listsApi.updateMember, { config: editLimit }, async (request) => {
    await updateMember(platform, userOf(request), request.params.id, request.body);
    return { status: true, message: LIST_MESSAGES.memberSaved };
  });

  serve(listsApi.addMember, { config: editLimit }, async (request) => ({
    status: true as const,
    message: LIST_MESSAGES.memberAdded,
    data: await addMember(platform, userOf(request), request.body, { ip: request.ip }),
  }));

  serve(listsApi.memberConsent, async (request) => ({
    status: true as const,
    data: await consentOfMember(platform, userOf(request), request.params.id),
  }));

  serve(listsApi.exportMembers, async (request, reply) => {
    const list = await requireList(platform.db, userOf(request), request.params.listId);
    return sendCsv(reply, `members-${list.id}.csv`, exportListMembers(platform, userOf(request), list.id));
  });

  // --- the signup form (its public side is the signup module's) ---

  serve(listsApi.signupForm, async (request) => ({
    status: true as const,
    message: '',
    data: await getSignupSettings(platform, userOf(request), request.params.listId),
  }));

  serve(listsApi.updateSignupForm, { config: editLimit }, async (request) => ({
    status: true as const,
    message: 'The signup form has been saved.',
    data: await updateSignupSettings(platform, userOf(request), request.params.listId, request.body),
  }));

  serve(listsApi.deleteMember, { config: editLimit }, async (request) => {
    const { listId, id, deleteMailgun } = request.body;
    await deleteMember(platform, userOf(request), { listId, memberId: id, deleteMailgun });
    return { status: true, message: LIST_MESSAGES.memberDeleted };
  });

  serve(listsApi.bulkDeleteMembers, { config: editLimit }, async (request) => {
    const deleted = await bulkDeleteMembers(platform, userOf(request), request.body);
    return { status: true, message: `${LIST_MESSAGES.membersDeleted} (${deleted})` };
  });

  // --- by address, for integrators (issue 48 §2): a key's calls say `api`, the app's `app` ---

  const sourceOf = (request: { apiKey: unknown }) => (request.apiKey ? ('api' as const) : ('app' as const));

  serve(listsApi.upsertMember, { config: editLimit }, async (request) => {
    const { member, created, confirmationSent } = await upsertMember(
      platform,
      userOf(request),
      request.params.listId,
      request.body,
      sourceOf(request),
    );
    return {
      status: true as const,
      message: confirmationSent
        ? 'The address has been asked to confirm: it joins the list once it does.'
        : created
          ? LIST_MESSAGES.memberAdded
          : LIST_MESSAGES.memberSaved,
      created,
      confirmation_sent: confirmationSent,
      data: member,
    };
  });

  serve(listsApi.unsubscribeMember, { config: editLimit }, async (request) => {
    const wasSubscribed = await unsubscribeMember(
      platform,
      userOf(request),
      request.params.listId,
      request.body.email,
      sourceOf(request),
    );
    return {
      status: true,
      message: wasSubscribed ? 'The member has been unsubscribed.' : 'The member was unsubscribed already.',
    };
  });

  serve(listsApi.removeMember, { config: editLimit }, async (request) => {
    await removeMember(platform, userOf(request), request.params.listId, request.body.email);
    return { status: true, message: LIST_MESSAGES.memberDeleted };
  });

  serve(
    listsApi.bulkMembers,
    {
      // A call is up to 10,000 members: a call a second on average, past the key's own limit.
      config: perUserLimit('members-bulk', 600),
      bodyLimit: 16 * 1024 * 1024,
    },
    async (request) =>
      bulkSaveMembers(platform, userOf(request), request.params.listId, request.body, sourceOf(request)),
  );

  // --- imports of large files ---

  serve(
    listsApi.startImport,
    {
      config: perUserLimit('list-import', 60),
      // The file and the form around it (the mapping field, boundaries).
      upload: {
        maxBytes: platform.config.listImportMaxBytes + MULTIPART_OVERHEAD,
        tooLarge: LIST_MESSAGES.csvTooLarge,
      },
    },
    async (request) => ({
      status: true as const,
      message: LIST_MESSAGES.importQueued,
      data: await startImport(
        platform,
        userOf(request),
        request.params.listId,
        uploadParts(request, { tooLarge: LIST_MESSAGES.csvTooLarge }) as AsyncIterable<TUploadPart>,
        { ip: request.ip },
      ),
    }),
  );

  serve(listsApi.activeImports, async (request) => ({ data: await listActiveImports(platform, userOf(request)) }));

  serve(listsApi.import, async (request) => ({ data: await findImport(platform, userOf(request), request.params.id) }));

  serve(listsApi.skippedReport, async (request, reply) => {
    const found = await findImport(platform, userOf(request), request.params.id);
    if (!found.has_report) throw notFound('This import skipped no rows.');
    return sendCsv(reply, `skipped-rows-${found.id}.csv`, importReportChunks(platform, found.id));
  });
});
