import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { callsTo, stubApi } from '../../test/api';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { jsonResponse, renderWithApp } from '../../test/render';
import { SendProgressCard } from './SendProgressCard';
import { buildProgress } from './send-email.fixtures';

const PROGRESS = 'GET /api/email/sends/42';
const REASON =
  "Hard bounces reached 9.5% (19 of the first 200 messages), above your account's limit of 5%. The list likely holds old or mistyped addresses: verify it, or remove the bounced addresses, before you resume.";

describe('the progress card and the circuit breaker', () => {
  beforeEach(() => {
    stubWebSocket();
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
  });

  it('says why the breaker paused the send the moment it is told, and resumes on the user’s word', async () => {
    let progress = buildProgress({ status: 'sending', recipients_count: 1000, waiting_count: 800 });
    const fetchMock = stubApi({
      [PROGRESS]: () => jsonResponse({ data: progress }),
      'POST /api/email/sends/42/resume': { status: true, message: 'The send goes on.' },
    });
    renderWithApp(<SendProgressCard sendId={42} />, createQueryClient());
    const card = within(await screen.findByTestId('send-progress'));
    expect(await card.findByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(card.queryByTestId('breaker-reason')).toBeNull();

    progress = { ...progress, status: 'paused', breaker_reason: REASON };
    act(() =>
      pushRealtimeEvent('SendProgressEvent', {
        id: 42,
        status: 'paused',
        recipients_count: 1000,
        sent_count: 181,
        failed_count: 19,
        unknown_count: 0,
        note: null,
        breaker_reason: REASON,
      }),
    );
    const alert = within(await card.findByTestId('breaker-reason'));
    expect(alert.getByText('Paused by Sendwell to protect your sender')).toBeTruthy();
    expect(alert.getByText(REASON)).toBeTruthy();
    expect(card.getByText('paused')).toBeTruthy();
    // No dismissing a send that is not over; resume and cancel are offered.
    expect(card.queryByRole('button', { name: 'Dismiss' })).toBeNull();
    expect(card.getByRole('button', { name: 'Cancel' })).toBeTruthy();

    progress = { ...progress, status: 'sending' };
    fireEvent.click(card.getByRole('button', { name: 'Resume' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/email/sends/42/resume')).toHaveLength(1));
    // Going again, the reason is no longer shown as the state of the send.
    await waitFor(() => expect(card.queryByTestId('breaker-reason')).toBeNull());
  });

  it('shows the live figures beside the reason, and says a resumed send is judged again (issue 45 §3)', async () => {
    let progress = buildProgress({
      status: 'paused',
      breaker_reason: REASON,
      breaker: { judged_from: null, attempts: 216, hard_bounces: 24, complaints: 1 },
    });
    stubApi({ [PROGRESS]: () => jsonResponse({ data: progress }) });
    renderWithApp(<SendProgressCard sendId={42} />, createQueryClient());
    const card = within(await screen.findByTestId('send-progress'));
    expect((await card.findByTestId('breaker-live')).textContent).toBe(
      'Now: 24 hard bounces and 1 complaint of 216 messages.',
    );
    progress = {
      ...progress,
      status: 'sending',
      breaker: { judged_from: '2026-11-28T10:00:00.000Z', attempts: 1, hard_bounces: 0, complaints: 0 },
    };
    act(() =>
      pushRealtimeEvent('SendProgressEvent', {
        id: 42,
        status: 'sending',
        recipients_count: 1000,
        sent_count: 192,
        failed_count: 24,
        unknown_count: 0,
        note: null,
        breaker_reason: REASON,
        breaker: progress.breaker,
      }),
    );
    const resumed = within(await card.findByTestId('breaker-resumed'));
    expect(
      resumed.getByText(
        /judged again against your limits: Now: 0 hard bounces and 0 complaints of 1 message since the resume\./,
      ),
    ).toBeTruthy();
    expect(card.queryByTestId('breaker-reason')).toBeNull();
  });

  it('shows a pause of the user’s own without the breaker’s words', async () => {
    stubApi({ [PROGRESS]: { data: buildProgress({ status: 'paused' }) } });
    renderWithApp(<SendProgressCard sendId={42} />, createQueryClient());
    const card = within(await screen.findByTestId('send-progress'));
    expect(await card.findByRole('button', { name: 'Resume' })).toBeTruthy();
    expect(card.queryByTestId('breaker-reason')).toBeNull();
  });
});
