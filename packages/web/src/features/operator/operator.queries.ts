import { operatorApi, routeUrl, type TDailyCapChange, type TPlanInput } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const OPERATOR_USERS_URL = routeUrl(operatorApi.users);
export const OPERATOR_TICKETS_URL = routeUrl(operatorApi.tickets);
export const OPERATOR_AUDIT_URL = routeUrl(operatorApi.audit);

export const operatorKeys = {
  all: ['operator'] as const,
  users: ['operator', 'users'] as const,
  plans: ['operator', 'plans'] as const,
  accounts: (userId: number) => ['operator', 'accounts', userId] as const,
  tickets: ['operator', 'tickets'] as const,
  ticket: (id: number) => ['operator', 'ticket', id] as const,
  announcements: ['operator', 'announcements'] as const,
  system: ['operator', 'system'] as const,
  audit: ['operator', 'audit'] as const,
};

/** Every operator action changes something the other tabs show (and the audit log). */
const useOperatorMutation = <V, R>(mutationFn: (variables: V) => Promise<R>) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: operatorKeys.all }),
  });
};

export const usePlans = () =>
  useQuery({
    queryKey: operatorKeys.plans,
    queryFn: async ({ signal }) => (await callRoute(operatorApi.plans, { signal })).data,
  });

export const useChangeCredits = (id: number) =>
  useOperatorMutation((body: { action: 'grant' | 'remove'; amount: number; reason: string }) =>
    callRoute(operatorApi.changeCredits, { params: { id }, body }),
  );
export const useChangePlan = (id: number) =>
  useOperatorMutation((planId: number) => callRoute(operatorApi.changePlan, { params: { id }, body: { planId } }));
export const useDisableUser = (id: number) =>
  useOperatorMutation((body: { disabled: boolean; reason: string }) =>
    callRoute(operatorApi.disableUser, { params: { id }, body }),
  );

export const useUserAccounts = (userId: number) =>
  useQuery({
    queryKey: operatorKeys.accounts(userId),
    queryFn: async ({ signal }) => (await callRoute(operatorApi.userAccounts, { params: { id: userId }, signal })).data,
  });
export const useSetDailyCap = (accountId: number) =>
  useOperatorMutation((body: TDailyCapChange) =>
    callRoute(operatorApi.setDailyCap, { params: { id: accountId }, body }),
  );

export const useSavePlan = (id: number | null) =>
  useOperatorMutation((body: TPlanInput) =>
    id === null
      ? callRoute(operatorApi.createPlan, { body })
      : callRoute(operatorApi.updatePlan, { params: { id }, body }),
  );

export const useOperatorTicket = (id: number | null) =>
  useQuery({
    queryKey: operatorKeys.ticket(id ?? 0),
    enabled: id !== null,
    queryFn: async ({ signal }) => (await callRoute(operatorApi.ticket, { params: { id: id! }, signal })).data,
  });
export const useAnswerTicket = (id: number) =>
  useOperatorMutation((message: string) => callRoute(operatorApi.answerTicket, { params: { id }, body: { message } }));
export const useCloseTicket = (id: number) =>
  useOperatorMutation(() => callRoute(operatorApi.closeTicket, { params: { id } }));

export const useAnnouncements = () =>
  useQuery({
    queryKey: operatorKeys.announcements,
    queryFn: async ({ signal }) => (await callRoute(operatorApi.announcements, { signal })).data,
  });
export const useSaveAnnouncement = (id: number | null) =>
  useOperatorMutation((body: { title: string; body: string }) =>
    id === null
      ? callRoute(operatorApi.createAnnouncement, { body })
      : callRoute(operatorApi.updateAnnouncement, { params: { id }, body }),
  );
export const usePublishAnnouncement = () =>
  useOperatorMutation(({ id, published }: { id: number; published: boolean }) =>
    callRoute(operatorApi.publishAnnouncement, { params: { id }, body: { published } }),
  );

export const useSystemStatus = () =>
  useQuery({
    queryKey: operatorKeys.system,
    queryFn: async ({ signal }) => (await callRoute(operatorApi.system, { signal })).data,
    refetchInterval: 5_000,
  });
