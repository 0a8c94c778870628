import {
  deliveryParts,
  historyApi,
  preSendApi,
  sendEmailApi,
  senderDomain,
  sendsAsSenderNameOnly,
  type TRealtimePayload,
  type TSaveTemplateRequest,
  type TSendAccount,
  type TSendEmailContent,
  type TSendEmailForm,
  type TSendProgress,
  type TSpamTestRequest,
  type TTemplate,
  templatesApi,
  ZEmailDocument,
} from '@sendwell/contracts';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';
import type { TSendFormValues } from './send-email.form';

export const sendEmailKeys = {
  all: ['send-email'] as const,
  /** The page's starting data; also holds the template library the picker offers. */
  content: ['send-email', 'content'] as const,
  accountLists: (accountId: number) => ['send-email', 'account-lists', accountId] as const,
  send: (id: number) => ['send-email', 'send', id] as const,
};

/** What the progress card's buttons do to a send, each its own call. */
const SEND_ACTIONS = {
  pause: sendEmailApi.pause,
  resume: sendEmailApi.resume,
  cancel: sendEmailApi.cancel,
  'resend-unknown': sendEmailApi.resendUnknown,
};
export type TSendAction = keyof typeof SEND_ACTIONS;

/** Accounts, the primary account's lists, templates, the SMTP cap, the plan's scheduling and the user's zone. */
export const useSendEmailContent = () =>
  useQuery({
    queryKey: sendEmailKeys.content,
    queryFn: async ({ signal }) => (await callRoute(sendEmailApi.content, { signal })).data,
    // The page shows a failed load in place of the form.
    meta: { reportErrors: false },
    staleTime: 60_000,
  });

/**
 * The lists and SMTP cap of an account other than the one the page started with. `null`
 * for the starting account: the page content already holds its lists.
 */
export const useAccountLists = (accountId: number | null) =>
  useQuery({
    queryKey: sendEmailKeys.accountLists(accountId ?? 0),
    queryFn: ({ signal }) => callRoute(sendEmailApi.accountLists, { params: { accountId: accountId ?? 0 }, signal }),
    enabled: accountId !== null,
  });

/** The audience of the chosen lists: duplicates, recipients counted once, and how many are unverified. */
export const useCheckDuplicates = () =>
  useMutation({
    mutationFn: (mailingLists: number[]) => callRoute(sendEmailApi.duplicates, { body: { mailingLists } }),
  });

export const useSendEmail = () =>
  useMutation({
    mutationFn: (request: TSendEmailForm) => callRoute(sendEmailApi.send, { body: request }),
    // The form puts field errors beside their inputs; other failures are reported by the page.
    meta: { reportErrors: false },
  });

/** Statuses in which a send still has work to do, and is worth watching. */
export const isSendActive = (status: string) =>
  status === 'queued' || status === 'snapshotting' || status === 'sending' || status === 'paused' || status === 'held';

/** Polling is the fallback for a tab whose realtime socket is down; events usually come first. */
export const SEND_POLL_MS = 3_000;

export const useSendProgress = (id: number) =>
  useQuery({
    queryKey: sendEmailKeys.send(id),
    queryFn: async ({ signal }) => (await callRoute(sendEmailApi.progress, { params: { id }, signal })).data,
    refetchInterval: (query) =>
      query.state.data && isSendActive(query.state.data.status) && query.state.data.status !== 'paused'
        ? SEND_POLL_MS
        : false,
    staleTime: 0,
    // The progress card shows a failed load with a retry.
    meta: { reportErrors: false },
  });

/**
 * Keeps a send's card current from `SendProgressEvent`: the counts the event carries show at
 * once, and the send is fetched again for what it does not carry (waiting, delivered).
 */
export const useSendProgressEvents = (id: number) => {
  const queryClient = useQueryClient();
  useRealtimeEvent('SendProgressEvent', (progress: TRealtimePayload<'SendProgressEvent'>) => {
    if (progress.id !== id) return;
    queryClient.setQueryData<TSendProgress>(sendEmailKeys.send(id), (known) =>
      known ? { ...known, ...progress, status: progress.status as TSendProgress['status'] } : known,
    );
    void queryClient.invalidateQueries({ queryKey: sendEmailKeys.send(id) });
  });
};

export const useSendAction = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: TSendAction) => callRoute(SEND_ACTIONS[action], { params: { id } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sendEmailKeys.send(id) }),
  });
};

/** The template library lives in the page content; a change is written there rather than fetched again. */
const updateTemplates = (queryClient: QueryClient, change: (templates: TTemplate[]) => TTemplate[]) =>
  queryClient.setQueryData<TSendEmailContent>(sendEmailKeys.content, (content) =>
    content ? { ...content, templates: change(content.templates) } : content,
  );

export const useSaveTemplate = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TSaveTemplateRequest) => callRoute(templatesApi.save, { body: request }),
    onSuccess: ({ data }) =>
      updateTemplates(queryClient, (templates) =>
        [...templates.filter((template) => template.id !== data.id), data].sort(
          (first, second) => Number(second.builtIn) - Number(first.builtIn) || first.name.localeCompare(second.name),
        ),
      ),
    // The dialog shows the field errors beside the name.
    meta: { reportErrors: false },
  });
};

export const useDeleteTemplate = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => callRoute(templatesApi.delete, { params: { id } }),
    onSuccess: (_response, id) =>
      updateTemplates(queryClient, (templates) => templates.filter((template) => template.id !== id)),
  });
};

type TEditEmailData = Awaited<ReturnType<typeof callRoute<typeof historyApi.editEmailData>>>;

/** A stored document as the editor can open it; anything else (an older shape) opens the HTML. */
const readStoredDocument = (stored: unknown) => {
  const parsed = ZEmailDocument.safeParse(stored);
  return parsed.success ? parsed.data : null;
};

/** An old send as the starting point of a new one (`/history/edit-email/{id}`). */
export const useEditEmailData = (id: number | null) =>
  useQuery({
    queryKey: ['history', 'edit-email', id],
    enabled: id !== null,
    queryFn: ({ signal }) => callRoute(historyApi.editEmailData, { params: { id: id! }, signal }),
  });

/**
 * The alias and subdomain choice a sent address stands for (`alias@domain` of a Mailgun
 * account), so the form shows the sender as it went. SMTP and Gmail send as the name alone.
 */
const senderPartsOfAddress = (address: string, account: TSendAccount | undefined) => {
  if (!account || !address || sendsAsSenderNameOnly(account.provider)) return {};
  const at = address.lastIndexOf('@');
  if (at <= 0) return {};
  const domain = address.slice(at + 1).toLowerCase();
  return {
    alias: address.slice(0, at),
    useSubdomain: domain === senderDomain(account.domain, true) && domain !== senderDomain(account.domain, false),
  };
};

/** An old send as the starting point of a new one (History's Edit), or a scheduled one as it stands. */
export const fromOldSend = (
  { record }: TEditEmailData,
  accounts: readonly TSendAccount[] = [],
): Partial<TSendFormValues> => ({
  ...(record.account_id ? { account: String(record.account_id) } : {}),
  senderName: record.from,
  ...senderPartsOfAddress(
    record.from_address,
    accounts.find((account) => account.id === record.account_id),
  ),
  to: record.list_ids.map(String),
  subject: record.subject,
  cc: record.content.cc,
  bcc: record.content.bcc,
  reply: record.content.reply_to,
  message: record.content.message_body,
  document: readStoredDocument(record.document),
  trackOpens: record.track_opens,
  trackClicks: record.track_clicks,
});

/**
 * A scheduled email in the Send Email form (Edit Scheduled Email): as `fromOldSend`, with its
 * delivery time on the user's clock, so the form shows what the Scheduled Emails list shows.
 */
export const fromScheduledSend = (
  data: TEditEmailData,
  accounts: readonly TSendAccount[],
  timeZone: string,
): Partial<TSendFormValues> => {
  const parts = data.record.delivery_time ? deliveryParts(new Date(data.record.delivery_time), timeZone) : null;
  return {
    ...fromOldSend(data, accounts),
    deliveryDate: parts?.date ?? null,
    deliverySlot: parts?.slot ?? null,
  };
};

/**
 * A pre-send check's query: asked while its request is there, kept fresh for `staleTime` (the
 * server keeps DNS answers for their TTL anyway), never retried; a failed check is shown by
 * the checklist itself and never stands in the way of sending.
 */
export const preSendCheckQuery = <TBody, TAnswer>(
  queryKey: readonly unknown[],
  body: TBody | null,
  ask: (body: TBody, signal: AbortSignal) => Promise<TAnswer>,
  staleTime = 60_000,
) => ({
  queryKey,
  queryFn: ({ signal }: { signal: AbortSignal }) => ask(body as TBody, signal),
  enabled: body !== null,
  staleTime,
  retry: false,
  meta: { reportErrors: false },
});

/** The pre-send check of a form as it would be sent (issue 31), asked when the confirmation opens. */
export const usePreSendCheck = (request: TSendEmailForm | null) =>
  useQuery(
    preSendCheckQuery(['send-email', 'pre-send', request], request, (body, signal) =>
      callRoute(sendEmailApi.preSendCheck, { body, signal }),
    ),
  );

/** The same check for the spam-test form (its sender and message) and a drip campaign's start (its draft). */
export const useSpamTestPreSendCheck = (request: TSpamTestRequest | null) =>
  useQuery(
    preSendCheckQuery(['spam-test', 'pre-send', request], request, (body, signal) =>
      callRoute(preSendApi.spamTest, { body, signal }),
    ),
  );

export const useCampaignPreSendCheck = (temporaryKey: string | null) =>
  useQuery(
    preSendCheckQuery(
      ['campaigns', 'pre-send', temporaryKey],
      temporaryKey,
      (temporary, signal) => callRoute(preSendApi.campaignStart, { body: { temporary }, signal }),
      10_000,
    ),
  );
