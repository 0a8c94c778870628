import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { callsTo, stubApi } from '../../test/api';
import { campaignKeys, useCampaignMutation } from './campaigns.queries';

const FINISH = 'PUT /api/campaigns/save-campaign/6';

describe('useCampaignMutation', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('saving a campaign refreshes the campaign queries but not what the wizard read of its draft, which is gone', async () => {
    const fetchMock = stubApi({ [FINISH]: { status: true, message: 'Campaign saved.', id: 7 } });
    const queryClient = createQueryClient();
    const draftFetch = vi.fn(async () => ({ temporaryKey: 'k1' }));
    const onSaved = vi.fn();
    const continueFetch = vi.fn(async () => ({ temporaryKey: 'k1' }));
    const listFetch = vi.fn(async () => ({ data: [] }));
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    );
    const hook = renderHook(
      () => ({
        draft: useQuery({ queryKey: campaignKeys.draft('k1'), queryFn: draftFetch }),
        resumed: useQuery({ queryKey: ['campaigns', 'continue', '1'], queryFn: continueFetch }),
        list: useQuery({ queryKey: campaignKeys.list, queryFn: listFetch }),
        finish: useCampaignMutation('finish', onSaved),
      }),
      { wrapper },
    );
    await waitFor(() => expect(hook.result.current.list.isSuccess && hook.result.current.resumed.isSuccess).toBe(true));

    await act(() => hook.result.current.finish.mutateAsync({ body: { temporary: 'k1' } }));

    expect(callsTo(fetchMock, FINISH)).toHaveLength(1);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 7 }));
    await waitFor(() => expect(listFetch).toHaveBeenCalledTimes(2));
    expect(draftFetch).toHaveBeenCalledTimes(1);
    expect(continueFetch).toHaveBeenCalledTimes(1);
  });

  it('calls onSaved even when the step that saved has left the screen', async () => {
    let answer!: (response: Response) => void;
    stubApi({ [FINISH]: () => new Promise<Response>((resolve) => (answer = resolve)) });
    const onSaved = vi.fn();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>
    );
    const hook = renderHook(() => useCampaignMutation('finish', onSaved), { wrapper });
    act(() => hook.result.current.mutate({ body: { temporary: 'k1' } }));
    await waitFor(() => expect(answer).toBeTypeOf('function'));
    hook.unmount();
    answer(new Response(JSON.stringify({ status: true, message: 'Campaign saved.', id: 7 })));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 7 })));
  });

  it('saving a step refreshes the draft with the rest', async () => {
    stubApi({ 'PUT /api/campaigns/save-campaign/1': { status: true, message: 'Saved.', id: 7, temporaryKey: 'k1' } });
    const queryClient = createQueryClient();
    const draftFetch = vi.fn(async () => ({ temporaryKey: 'k1' }));
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    );
    const hook = renderHook(
      () => ({
        draft: useQuery({ queryKey: campaignKeys.draft('k1'), queryFn: draftFetch }),
        start: useCampaignMutation('saveStart'),
      }),
      { wrapper },
    );
    await waitFor(() => expect(hook.result.current.draft.isSuccess).toBe(true));
    await act(() => hook.result.current.start.mutateAsync({ body: {} as never }));
    await waitFor(() => expect(draftFetch).toHaveBeenCalledTimes(2));
  });
});
