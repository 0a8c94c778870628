import { campaignsApi, plansApi, routeUrl, type TRouteBody } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const CAMPAIGNS_URL = routeUrl(campaignsApi.list);
export const membersUrl = (id: number) => routeUrl(campaignsApi.members, { id });
export const membersListUrl = (id: number) => routeUrl(campaignsApi.membersList, { id });
export const errorsUrl = (id: number) => routeUrl(campaignsApi.errors, { id });

export const campaignKeys = {
  all: ['campaigns'] as const,
  list: ['campaigns', 'list'] as const,
  drafts: ['campaigns', 'drafts'] as const,
  statistics: ['campaigns', 'statistics'] as const,
  draft: (key: string) => ['campaigns', 'draft', key] as const,
  campaign: (id: number) => ['campaigns', 'campaign', id] as const,
  members: (id: number) => ['campaigns', 'campaign', id, 'members'] as const,
  membersList: (id: number) => ['campaigns', 'campaign', id, 'members-list'] as const,
  errors: (id: number) => ['campaigns', 'campaign', id, 'errors'] as const,
  accounts: ['campaigns', 'accounts'] as const,
};

/** The accounts a campaign can send from (spec: `get-account-information`; a failed load says so in the Error! dialog). */
export const useCampaignAccounts = () =>
  useQuery({
    queryKey: campaignKeys.accounts,
    queryFn: ({ signal }) => callRoute(campaignsApi.accountInformation, { signal }),
    staleTime: 60_000,
  });

/** Whether the user's plan lets the first mail be scheduled (spec §6 `check-schedule`). */
export const useCheckSchedule = () =>
  useQuery({
    queryKey: ['plans', 'check-schedule'],
    queryFn: ({ signal }) => callRoute(plansApi.checkSchedule, { signal }),
    staleTime: 60_000,
  });

export const useListStatistics = () =>
  useQuery({
    queryKey: campaignKeys.statistics,
    queryFn: ({ signal }) => callRoute(campaignsApi.listStatistics, { signal }),
  });

export const useDrafts = () =>
  useQuery({
    queryKey: campaignKeys.drafts,
    queryFn: ({ signal }) => callRoute(campaignsApi.list, { query: { temporary: 1, per_page: 100 }, signal }),
  });

export const useSetCampaignStatus = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: boolean }) =>
      callRoute(campaignsApi.setStatus, { params: { id }, body: { status } }),
    onSuccess: (_data, { id }) => {
      void queryClient.invalidateQueries({ queryKey: campaignKeys.list });
      void queryClient.invalidateQueries({ queryKey: campaignKeys.campaign(id) });
    },
  });
};

export const useDraft = (key: string | null) =>
  useQuery({
    queryKey: campaignKeys.draft(key ?? ''),
    queryFn: async ({ signal }) =>
      (await callRoute(campaignsApi.temporaryData, { body: { temporaryKey: key ?? '' }, signal })).data,
    enabled: key !== null,
    meta: { reportErrors: false },
  });

export const useCampaignGeneral = (id: number) =>
  useQuery({
    queryKey: [...campaignKeys.campaign(id), 'general'],
    queryFn: async ({ signal }) => (await callRoute(campaignsApi.general, { params: { id }, signal })).campaign,
    meta: { reportErrors: false },
  });

export const useCampaignOverview = (id: number) =>
  useQuery({
    queryKey: [...campaignKeys.campaign(id), 'overview'],
    queryFn: async ({ signal }) => (await callRoute(campaignsApi.overview, { params: { id }, signal })).campaign,
    refetchInterval: 15_000,
  });

export const useCampaignEmails = (id: number) =>
  useQuery({
    queryKey: [...campaignKeys.campaign(id), 'emails'],
    queryFn: ({ signal }) => callRoute(campaignsApi.emails, { params: { id }, signal }),
  });

export const useCampaignVariables = (id: number) =>
  useQuery({
    queryKey: [...campaignKeys.campaign(id), 'variables'],
    queryFn: async ({ signal }) => (await callRoute(campaignsApi.variables, { params: { id }, signal })).variables,
  });

export const useRecipientHistory = (recipientId: number) =>
  useQuery({
    queryKey: ['campaigns', 'recipient-history', recipientId],
    queryFn: async ({ signal }) =>
      (await callRoute(campaignsApi.recipientHistory, { params: { id: recipientId }, signal })).history,
  });

/** The second part of the keys of the queries that read an unsaved campaign (the wizard's). */
const WIZARD_QUERIES = new Set(['draft', 'continue', 'pre-send']);

/**
 * A wizard step's save. `onSaved` runs on success even when the step left the screen while
 * its save was under way (callbacks given to `mutate` are dropped then: a Finish step left for
 * another tab during its save never reached the saved campaign).
 */
export const useCampaignMutation = <R extends keyof typeof campaignsApi>(
  route: R,
  onSaved?: (answer: { status: boolean; message: string } & Record<string, unknown>) => void,
) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (call: { id?: number; body: TRouteBody<(typeof campaignsApi)[R]> }) =>
      callRoute(
        campaignsApi[route] as never,
        {
          ...(call.id !== undefined ? { params: { id: call.id } } : {}),
          body: call.body,
        } as never,
      ) as Promise<{ status: boolean; message: string } & Record<string, unknown>>,
    onSuccess: (answer) => {
      onSaved?.(answer);
      void queryClient.invalidateQueries({
        queryKey: campaignKeys.all,
        // A saved campaign's draft is gone, and with it what the wizard read of it (the draft,
        // its resume address, its pre-send check): refetched, they answered 404 and the wizard,
        // still on screen, swapped its page for "does not exist any more" before moving on to
        // the saved campaign, or instead of it (seen in the campaigns journey).
        ...(route === 'finish' ? { predicate: (query) => !WIZARD_QUERIES.has(String(query.queryKey[1])) } : {}),
      });
    },
    meta: { reportErrors: false },
  });
};
