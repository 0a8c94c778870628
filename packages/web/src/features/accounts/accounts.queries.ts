import type { TAccountForm, TAccountProviders, TSendingAccount, TSendTestSmtpRequest } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../app/api';

export const accountKeys = {
  all: ['accounts'] as const,
  list: ['accounts', 'list'] as const,
  providers: ['accounts', 'providers'] as const,
};

export const useAccounts = () =>
  useQuery({
    queryKey: accountKeys.list,
    queryFn: async ({ signal }) =>
      (await api.get<{ data: TSendingAccount[] }>('/api/settings/accounts', undefined, signal)).data,
  });

/** What this user may add: the providers on offer, the SMTP services, the plan's limit and the test inbox. */
export const useAccountProviders = () =>
  useQuery({
    queryKey: accountKeys.providers,
    queryFn: ({ signal }) => api.get<TAccountProviders>('/api/settings/account/get-providers', undefined, signal),
  });

type TSaveResponse = { status: true; message: string; data: TSendingAccount };

/** Add (no id) or change an account. The server checks the credentials with the provider first, which takes seconds. */
export const useSaveAccount = (accountId: number | undefined) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (form: TAccountForm) =>
      api.post<TSaveResponse>(
        accountId === undefined
          ? '/api/settings/account/create-or-update'
          : `/api/settings/account/create-or-update/${accountId}`,
        form,
      ),
    // Making one account primary takes the mark off another: the whole list changes.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.list }),
    // The form shows field errors, the provider's refusal and the upgrade notice itself.
    meta: { reportErrors: false },
  });
};

export const useDeleteAccount = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accountId: number) =>
      api.delete<{ status: true; message: string }>(`/api/settings/account/delete-api/${accountId}`),
    // Deleting the primary account can move the mark to another.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.list }),
  });
};

type TTestSmtpResponse = { status: true; result: true; message: string };

/** Connects, logs in and sends a test message to the signed-in user. */
export const useSendTestSmtp = () =>
  useMutation({
    mutationFn: (request: TSendTestSmtpRequest) =>
      api.post<TTestSmtpResponse>('/api/settings/account/send-test-smtp', request),
    // The form shows the outcome, success or failure, beside the button.
    meta: { reportErrors: false },
  });
