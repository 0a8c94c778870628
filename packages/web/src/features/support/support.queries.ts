import { routeUrl, supportApi, type TNewTicket, type TTicketDetails, type TUserInformation } from '@sendwell/contracts';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';

export const TICKETS_URL = routeUrl(supportApi.tickets);

export const ticketKeys = {
  all: ['tickets'] as const,
  list: ['tickets', 'list'] as const,
  details: (id: number) => ['tickets', 'details', id] as const,
};

/** The Support link's badge lives on the signed-in user; a pushed count moves it at once. */
export const setUnreadTickets = (queryClient: QueryClient, unread: number) =>
  queryClient.setQueryData<TUserInformation | null>(USER_QUERY_KEY, (user) =>
    user ? { ...user, unread_tickets: unread } : user,
  );

/** A ticket with its messages; reading it marks the answers read (the badge follows). */
export const useTicket = (id: number | null) => {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ticketKeys.details(id ?? 0),
    enabled: id !== null,
    queryFn: async ({ signal }) => {
      const { data, unread } = await callRoute(supportApi.ticket, { params: { id: id! }, signal });
      setUnreadTickets(queryClient, unread);
      void queryClient.invalidateQueries({ queryKey: ticketKeys.list });
      return data;
    },
  });
};

export const useCreateTicket = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ticket: TNewTicket) => callRoute(supportApi.createTicket, { body: ticket }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ticketKeys.list }),
  });
};

export const useRespond = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (message: string) => callRoute(supportApi.respond, { params: { id }, body: { message } }),
    onSuccess: ({ data }) => {
      queryClient.setQueryData<TTicketDetails>(ticketKeys.details(id), data);
      return queryClient.invalidateQueries({ queryKey: ticketKeys.list });
    },
  });
};

/**
 * An operator answered or closed a ticket: the badge moves at once, and the list and any
 * open ticket refetch, so the answer shows without a reload.
 */
export const useTicketEvents = () => {
  const queryClient = useQueryClient();
  useRealtimeEvent('TicketEvent', ({ unread }) => {
    setUnreadTickets(queryClient, unread);
    void queryClient.invalidateQueries({ queryKey: ticketKeys.all });
  });
};
