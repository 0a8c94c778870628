import { accountsApi, type TAccountForm, type TBreakerSettings, type TSendTestSmtpRequest } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const accountKeys = {
  all: ['accounts'] as const,
  list: ['accounts', 'list'] as const,
  providers: ['accounts', 'providers'] as const,
};

export const useAccounts = () =>
  useQuery({
    queryKey: accountKeys.list,
    queryFn: async ({ signal }) => (await callRoute(accountsApi.list, { signal })).data,
  });

/** What this user may add: the providers on offer, the SMTP services, the plan's limit and the test inbox. */
export const useAccountProviders = () =>
  useQuery({
    queryKey: accountKeys.providers,
    queryFn: ({ signal }) => callRoute(accountsApi.providers, { signal }),
  });

/** Add (no id) or change an account. The server checks the credentials with the provider first, which takes seconds. */
export const useSaveAccount = (accountId: number | undefined) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (form: TAccountForm) =>
      accountId === undefined
        ? callRoute(accountsApi.create, { body: form })
        : callRoute(accountsApi.update, { params: { id: accountId }, body: form }),
    // Making one account primary takes the mark off another: the whole list changes.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.list }),
    // The form shows field errors, the provider's refusal and the upgrade notice itself.
    meta: { reportErrors: false },
  });
};

export const useDeleteAccount = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accountId: number) => callRoute(accountsApi.delete, { params: { id: accountId } }),
    // Deleting the primary account can move the mark to another.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.list }),
  });
};

/** Connects, logs in and sends a test message to the signed-in user. */
export const useSendTestSmtp = () =>
  useMutation({
    mutationFn: (request: TSendTestSmtpRequest) => callRoute(accountsApi.sendTestSmtp, { body: request }),
    // The form shows the outcome, success or failure, beside the button.
    meta: { reportErrors: false },
  });

/** The circuit breaker's lines of an account (issue 31): saved alone, no credentials asked. */
export const useSaveBreakerLines = (accountId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TBreakerSettings) => callRoute(accountsApi.breaker, { params: { id: accountId }, body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.list }),
    // The form shows field errors itself.
    meta: { reportErrors: false },
  });
};
