import type { TUserInformation } from '@sendwell/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { CreditBalance } from './CreditBalance';

const signedInClient = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser({ credit: { totalCredit: 1000, usedCredit: 40 } }));
  return queryClient;
};

const shownBalance = () => screen.getByTestId('credit-balance').textContent;

describe('useCreditBalance', () => {
  beforeEach(() => {
    stubWebSocket();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new Error('The balance must come from user information and realtime, not a request.');
      }),
    );
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
  });

  it('starts from the balance user information carried at sign-in, and shows what is usable (total − used)', () => {
    renderWithApp(<CreditBalance />, signedInClient());
    expect(shownBalance()).toBe('960');
  });

  it('follows CreditBalanceEvent and keeps the new balance in the cached user information', async () => {
    const queryClient = signedInClient();
    const { unmount } = renderWithApp(<CreditBalance />, queryClient);

    act(() => pushRealtimeEvent('CreditBalanceEvent', { totalCredit: 1250, usedCredit: 75 }));

    await waitFor(() => expect(shownBalance()).toBe('1,175'));
    expect(queryClient.getQueryData<TUserInformation>(USER_QUERY_KEY)?.credit).toEqual({
      totalCredit: 1250,
      usedCredit: 75,
    });

    // Mounted again (another screen, the header re-rendering), it starts from the pushed value.
    unmount();
    renderWithApp(<CreditBalance />, queryClient);
    expect(shownBalance()).toBe('1,175');
  });

  it('shows a dash while no user is loaded, and an event does not invent one', () => {
    const queryClient = createQueryClient();
    queryClient.setQueryData(USER_QUERY_KEY, null);
    renderWithApp(<CreditBalance />, queryClient);

    act(() => pushRealtimeEvent('CreditBalanceEvent', { totalCredit: 5, usedCredit: 0 }));

    expect(shownBalance()).toBe('—');
    expect(queryClient.getQueryData(USER_QUERY_KEY)).toBeNull();
  });
});
