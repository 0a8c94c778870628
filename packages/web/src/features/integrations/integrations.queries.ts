import {
  apiKeysApi,
  type TCreateApiKeyRequest,
  type TSaveWebhookRequest,
  type TWebhookEndpoint,
  webhooksApi,
} from '@sendwell/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const integrationKeys = {
  apiKeys: ['api-keys'] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (endpointId: number, page: number) => ['webhooks', endpointId, 'deliveries', page] as const,
};

export const useApiKeys = () =>
  useQuery({
    queryKey: integrationKeys.apiKeys,
    queryFn: async ({ signal }) => (await callRoute(apiKeysApi.list, { signal })).data,
    meta: { reportErrors: false },
  });

export const useCreateApiKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateApiKeyRequest) => callRoute(apiKeysApi.create, { body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: integrationKeys.apiKeys }),
    meta: { reportErrors: false },
  });
};

export const useRevokeApiKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => callRoute(apiKeysApi.revoke, { params: { id } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: integrationKeys.apiKeys }),
  });
};

export const useWebhooks = () =>
  useQuery({
    queryKey: integrationKeys.webhooks,
    queryFn: async ({ signal }) => (await callRoute(webhooksApi.list, { signal })).data,
    meta: { reportErrors: false },
  });

const useWebhookChange = <T, R>(call: (input: T) => Promise<R>, reportErrors = true) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: integrationKeys.webhooks }),
    meta: { reportErrors },
  });
};

export const useCreateWebhook = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TSaveWebhookRequest) => callRoute(webhooksApi.create, { body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: integrationKeys.webhooks }),
    meta: { reportErrors: false },
  });
};

export const useToggleWebhook = () =>
  useWebhookChange((endpoint: TWebhookEndpoint) =>
    callRoute(webhooksApi.update, {
      params: { id: endpoint.id },
      body: {
        url: endpoint.url,
        description: endpoint.description,
        events: endpoint.events,
        is_enabled: !endpoint.is_enabled,
      },
    }),
  );

export const useDeleteWebhook = () =>
  useWebhookChange((id: number) => callRoute(webhooksApi.delete, { params: { id } }));

export const useRevealSecret = () =>
  useMutation({ mutationFn: (id: number) => callRoute(webhooksApi.secret, { params: { id } }) });

export const useTestWebhook = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => callRoute(webhooksApi.test, { params: { id } }),
    onSettled: (_data, _error, id) => void queryClient.invalidateQueries({ queryKey: ['webhooks', id, 'deliveries'] }),
  });
};

export const useWebhookDeliveries = (endpointId: number, page: number) =>
  useQuery({
    queryKey: integrationKeys.deliveries(endpointId, page),
    queryFn: ({ signal }) =>
      callRoute(webhooksApi.deliveries, { params: { id: endpointId }, query: { page, per_page: 10 }, signal }),
    placeholderData: keepPreviousData,
    meta: { reportErrors: false },
  });
