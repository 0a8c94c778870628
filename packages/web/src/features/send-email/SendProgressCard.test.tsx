import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { stubWebSocket } from '../../test/realtime';
import { renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { SendProgressCard } from './SendProgressCard';
import { buildProgress } from './send-email.fixtures';

const PROGRESS = 'GET /api/email/sends/42';
const RESEND = 'POST /api/email/sends/42/resend-unknown';

const renderCard = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser());
  return renderWithApp(<SendProgressCard sendId={42} onDismiss={() => {}} />, queryClient);
};

beforeEach(() => stubWebSocket());
afterEach(() => vi.unstubAllGlobals());

describe('SendProgressCard', () => {
  it('says which recipients have an unknown outcome and sends to them again only after asking', async () => {
    const fetchMock = stubApi({
      [PROGRESS]: {
        data: buildProgress({
          status: 'finished',
          recipients_count: 10,
          sent_count: 7,
          failed_count: 1,
          unknown_count: 2,
          waiting_count: 0,
        }),
      },
      [RESEND]: { status: true, message: '2 recipients with an unknown outcome are being sent the email again.' },
    });
    renderCard();
    const card = within(await screen.findByTestId('send-progress'));
    // Unknown recipients are handled: the send is done, not stuck short of 100%.
    expect(await card.findByText(/10 of 10 recipients handled \(100%\)/)).toBeTruthy();
    expect(card.getByText(/For 2 recipients the provider's answer never came/)).toBeTruthy();
    fireEvent.click(card.getByRole('button', { name: 'Send again to 2 unknown' }));
    const ask = within(await screen.findByRole('dialog', { name: 'Send again to the unknown recipients?' }));
    expect(callsTo(fetchMock, RESEND)).toHaveLength(0);
    fireEvent.click(ask.getByRole('button', { name: 'Yes, send again' }));
    await waitFor(() => expect(callsTo(fetchMock, RESEND)).toHaveLength(1));
    expect(
      await screen.findByText('2 recipients with an unknown outcome are being sent the email again.'),
    ).toBeTruthy();
  });

  it('offers no resend while the send still runs', async () => {
    stubApi({ [PROGRESS]: { data: buildProgress({ status: 'sending', unknown_count: 1 }) } });
    renderCard();
    const card = within(await screen.findByTestId('send-progress'));
    expect(await card.findByText(/For 1 recipient the provider's answer never came/)).toBeTruthy();
    expect(card.queryByRole('button', { name: /Send again/ })).toBeNull();
  });
});
