import {
  listsApi,
  privacyApi,
  routeUrl,
  type TAddMemberRequest,
  type TBulkDeleteMembersRequest,
  type TCreateListRequest,
  type TImportMapping,
  type TListImport,
  type TMailingList,
  type TPersonExportRequest,
  type TRealtimePayload,
  type TUpdateListRequest,
  type TUpdateMemberRequest,
  type TUpdateSignupSettings,
} from '@sendwell/contracts';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute, downloadRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';

export const LISTS_URL = routeUrl(listsApi.list);
export const membersUrl = (listId: number) => routeUrl(listsApi.members, { listId });
/** The list's members with their consent, a CSV download. */
export const membersExportUrl = (listId: number) => routeUrl(listsApi.exportMembers, { listId });
/** The list's signup form settings page. */
export const signupFormPath = (list: Pick<TMailingList, 'id'>) => `/mailing-lists/signup-form/${list.id}`;
/** The skipped-rows report of an import, a CSV download. */
export const skippedReportUrl = (importId: number) => routeUrl(listsApi.skippedReport, { id: importId });
/** The list's member screen (spec §2 linked path). */
export const listDetailPath = (list: Pick<TMailingList, 'account_id' | 'id'>) =>
  `/mailing-lists/detail/${list.account_id}/${list.id}`;

export const listKeys = {
  all: ['lists'] as const,
  /** Every page of the lists table. */
  table: ['lists', 'table'] as const,
  list: (id: number) => ['lists', 'list', id] as const,
  lists: ['lists', 'list'] as const,
  /** Every page of one list's member table; `['lists', 'members']` for all lists. */
  members: (listId: number) => ['lists', 'members', listId] as const,
  allMembers: ['lists', 'members'] as const,
  member: (id: number) => ['lists', 'member', id] as const,
  memberConsent: (id: number) => ['lists', 'member-consent', id] as const,
  signupForm: (listId: number) => ['lists', 'signup-form', listId] as const,
  genericControl: (listId: number) => ['lists', 'generic-control', listId] as const,
  deleteCheck: (listId: number) => ['lists', 'delete-check', listId] as const,
  genericNames: ['lists', 'generic-names'] as const,
  activeImports: ['lists', 'imports', 'active'] as const,
  import: (id: number) => ['lists', 'imports', id] as const,
};

/** Member counts and list counts move together: a member change refreshes the tables and the list header. */
const invalidateListData = (queryClient: QueryClient) =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: listKeys.table }),
    queryClient.invalidateQueries({ queryKey: listKeys.lists }),
    queryClient.invalidateQueries({ queryKey: listKeys.allMembers }),
  ]);

export const useListInfo = (id: number) =>
  useQuery({
    queryKey: listKeys.list(id),
    queryFn: async ({ signal }) => (await callRoute(listsApi.info, { params: { id }, signal })).data,
    // The member screen shows a missing list as its own state.
    meta: { reportErrors: false },
  });

export const useCreateList = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TCreateListRequest) => callRoute(listsApi.create, { body: request }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKeys.table }),
    // The form shows field errors and refusals beside its inputs.
    meta: { reportErrors: false },
  });
};

export const useUpdateList = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TUpdateListRequest) => callRoute(listsApi.update, { params: { id }, body: request }),
    onSuccess: () => invalidateListData(queryClient),
    meta: { reportErrors: false },
  });
};

/** The list a delete names, as `check-delete` and `delete` take it. */
export type TListDeleteTarget = { listId: number; account: number; address: string };

/** What still uses a list (drip campaigns, scheduled emails), asked each time the delete dialog opens. */
export const useListUsage = (request: TListDeleteTarget | null) =>
  useQuery({
    queryKey: listKeys.deleteCheck(request?.listId ?? 0),
    queryFn: () => callRoute(listsApi.checkDelete, { body: request ?? undefined }),
    enabled: request !== null,
    staleTime: 0,
    gcTime: 0,
  });

export const useDeleteList = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TListDeleteTarget & { deleteMailgun: boolean }) =>
      callRoute(listsApi.delete, { body: request }),
    onSuccess: () => invalidateListData(queryClient),
  });
};

/** Mailgun accounts only: copies the account's lists and their members from Mailgun. */
export const useSyncFromProvider = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accountId: number) => callRoute(listsApi.importFromProvider, { body: { accountId } }),
    onSuccess: () => invalidateListData(queryClient),
  });
};

export const useGenericControl = (listId: number) =>
  useQuery({
    queryKey: listKeys.genericControl(listId),
    queryFn: ({ signal }) => callRoute(listsApi.genericControl, { params: { id: listId }, signal }),
    staleTime: 0,
    // The modal shows the failure in place of the addresses.
    meta: { reportErrors: false },
  });

export const useClearGenericEmails = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (listId: number) => callRoute(listsApi.clearGeneric, { body: { listId } }),
    onSuccess: () =>
      Promise.all([
        invalidateListData(queryClient),
        queryClient.invalidateQueries({ queryKey: ['lists', 'generic-control'] }),
      ]),
  });
};

/** The local parts the server treats as generic (info, sales…), for the import preview's warning, and the import size limit. */
export const useImportOptions = () =>
  useQuery({
    queryKey: listKeys.genericNames,
    queryFn: async ({ signal }) => {
      const { emails, importMaxBytes } = await callRoute(listsApi.genericEmails, { signal });
      return { genericNames: new Set(emails.map((name) => name.toLowerCase())), importMaxBytes };
    },
    staleTime: Number.POSITIVE_INFINITY,
    // Without them the preview has no warning to give and the server checks the size; the import itself is unaffected.
    meta: { reportErrors: false },
  });

// --- members ---

export const useMember = (id: number) =>
  useQuery({
    queryKey: listKeys.member(id),
    queryFn: async ({ signal }) => (await callRoute(listsApi.member, { params: { id }, signal })).data,
    staleTime: 0,
  });

export const useAddMember = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TAddMemberRequest) => callRoute(listsApi.addMember, { body: request }),
    onSuccess: () => invalidateListData(queryClient),
    meta: { reportErrors: false },
  });
};

export const useUpdateMember = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TUpdateMemberRequest) => callRoute(listsApi.updateMember, { params: { id }, body: request }),
    onSuccess: () =>
      Promise.all([invalidateListData(queryClient), queryClient.invalidateQueries({ queryKey: listKeys.member(id) })]),
    meta: { reportErrors: false },
  });
};

export const useDeleteMember = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: { listId: number; id: number; email: string }) =>
      callRoute(listsApi.deleteMember, { body: request }),
    onSuccess: () => invalidateListData(queryClient),
  });
};

export const useBulkDeleteMembers = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TBulkDeleteMembersRequest) => callRoute(listsApi.bulkDeleteMembers, { body: request }),
    onSuccess: () => invalidateListData(queryClient),
  });
};

/** A member's consent records, newest first. */
export const useMemberConsent = (id: number) =>
  useQuery({
    queryKey: listKeys.memberConsent(id),
    queryFn: async ({ signal }) => (await callRoute(listsApi.memberConsent, { params: { id }, signal })).data,
    staleTime: 0,
  });

// --- a person's data (issue 48 §4) ---

/** Everything held about one address, saved as a JSON or CSV file. */
export const useExportPerson = () =>
  useMutation({
    mutationFn: (request: TPersonExportRequest) =>
      downloadRoute(privacyApi.exportPerson, { body: request }, `person-data.${request.format ?? 'json'}`),
  });

/** Erases everything held about one address; the member tables and counts change with it. */
export const useErasePerson = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => callRoute(privacyApi.erasePerson, { body: { email } }),
    onSuccess: () => invalidateListData(queryClient),
  });
};

// --- the signup form ---

export const useSignupForm = (listId: number) =>
  useQuery({
    queryKey: listKeys.signupForm(listId),
    queryFn: async ({ signal }) => (await callRoute(listsApi.signupForm, { params: { listId }, signal })).data,
    meta: { reportErrors: false },
  });

export const useUpdateSignupForm = (listId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TUpdateSignupSettings) =>
      callRoute(listsApi.updateSignupForm, { params: { listId }, body: request }),
    onSuccess: ({ data }) => {
      queryClient.setQueryData(listKeys.signupForm(listId), data);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: listKeys.list(listId) }),
        queryClient.invalidateQueries({ queryKey: listKeys.table }),
      ]);
    },
    meta: { reportErrors: false },
  });
};

// --- imports ---

/** An import still has work to do; its progress is worth watching. */
export const isImportActive = (listImport: Pick<TListImport, 'status'>) =>
  listImport.status === 'queued' || listImport.status === 'running';

/** Polling is the fallback for a tab whose realtime socket is down; events usually come first. */
export const IMPORT_POLL_MS = 2_000;

/**
 * Puts a newer state of an import into both caches that show it. An import that has just
 * finished changed the list's members, so the tables and counts are fetched again.
 */
const storeImport = (queryClient: QueryClient, previous: TListImport | undefined, next: TListImport) => {
  queryClient.setQueryData<TListImport[]>(listKeys.activeImports, (imports) =>
    imports?.map((listImport) => (listImport.id === next.id ? next : listImport)),
  );
  if (previous && isImportActive(previous) && !isImportActive(next)) void invalidateListData(queryClient);
};

export const useActiveImports = () =>
  useQuery({
    queryKey: listKeys.activeImports,
    queryFn: async ({ signal }) => (await callRoute(listsApi.activeImports, { query: { active: true }, signal })).data,
    // The progress cards are an extra; a failure leaves them out rather than interrupting the screen.
    meta: { reportErrors: false },
  });

/** One import, polled while it runs. */
export const useListImport = (initial: TListImport) => {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: listKeys.import(initial.id),
    queryFn: async ({ signal }) => {
      const previous = queryClient.getQueryData<TListImport>(listKeys.import(initial.id));
      const { data } = await callRoute(listsApi.import, { params: { id: initial.id }, signal });
      storeImport(queryClient, previous, data);
      return data;
    },
    initialData: initial,
    refetchInterval: (query) => (query.state.data && isImportActive(query.state.data) ? IMPORT_POLL_MS : false),
    meta: { reportErrors: false },
  });
};

/** Uploads the whole file with its column mapping; the server imports it in the background. */
export const useStartImport = (listId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, mapping }: { file: File; mapping: TImportMapping }) => {
      const form = new FormData();
      // The mapping goes first: the server reads the parts in order and needs it to read the file.
      form.append('mapping', JSON.stringify(mapping));
      form.append('file', file);
      return callRoute(listsApi.startImport, { params: { listId }, body: form });
    },
    onSuccess: ({ data }) => {
      queryClient.setQueryData(listKeys.import(data.id), data);
      queryClient.setQueryData<TListImport[]>(listKeys.activeImports, (imports) => [
        data,
        ...(imports ?? []).filter((listImport) => listImport.id !== data.id),
      ]);
    },
    // The import dialog shows the refusal (size, mapping) where the user is looking.
    meta: { reportErrors: false },
  });
};

/**
 * Keeps every import on screen current from `ListImportProgressEvent`. The event carries the
 * progress only; when an import ends it is fetched once more for its report and reasons.
 */
export const useImportProgressEvents = () => {
  const queryClient = useQueryClient();
  useRealtimeEvent('ListImportProgressEvent', (progress: TRealtimePayload<'ListImportProgressEvent'>) => {
    const known =
      queryClient.getQueryData<TListImport>(listKeys.import(progress.id)) ??
      queryClient.getQueryData<TListImport[]>(listKeys.activeImports)?.find((item) => item.id === progress.id);
    if (!known) {
      // Started in another tab: the list of active imports brings it in.
      void queryClient.invalidateQueries({ queryKey: listKeys.activeImports });
      return;
    }
    const next = { ...known, ...progress };
    storeImport(queryClient, known, next);
    queryClient.setQueryData(listKeys.import(progress.id), next);
    if (!isImportActive(next)) void queryClient.invalidateQueries({ queryKey: listKeys.import(progress.id) });
  });
};
