import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { jsonResponse, renderWithApp } from '../../test/render';
import { EngagementResend } from './EngagementResend';

const COUNT = 'GET /api/history/resend-engagement/7';
const RESEND = 'POST /api/history/resend-engagement/7';
const LINKS = [
  { id: 11, url: 'https://acme.test/sale', clicked: 3 },
  { id: 12, url: 'https://acme.test/blog', clicked: 1 },
];

describe('re-send by engagement from History', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows how many it reaches before confirming, narrows "clicked" to a link, and sends with a new subject', async () => {
    const fetchMock = stubApi({
      [COUNT]: () => {
        const url = new URL(String(fetchMock.mock.calls.at(-1)![0]), 'http://localhost');
        const count =
          url.searchParams.get('linkId') === '12' ? 1 : url.searchParams.get('audience') === 'clicked' ? 4 : 120;
        return jsonResponse({ count, links: LINKS, trackedOpens: true, trackedClicks: true });
      },
      [RESEND]: { status: true, message: 'Your email is on its way to 1 recipient.', id: 99, count: 1 },
    });
    renderWithApp(<EngagementResend sendId={7} accountId={3} subject="November news" />);

    fireEvent.click(screen.getByRole('button', { name: 'Send again to…' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Send to those who did not open' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'Send to those who did not open' }));
    expect((await dialog.findByTestId('engagement-count')).textContent).toContain(
      '120 recipients who did not open it will get “November news” again.',
    );
    expect(callsTo(fetchMock, RESEND)).toHaveLength(0);
    fireEvent.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    fireEvent.click(screen.getByRole('button', { name: 'Send again to…' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Send to those who clicked' }));
    dialog = within(await screen.findByRole('dialog', { name: 'Send to those who clicked' }));
    await waitFor(() => expect(dialog.getByTestId('engagement-count').textContent).toContain('4 recipients'));
    fireEvent.change(dialog.getByLabelText('Clicked'), { target: { value: '12' } });
    await waitFor(() =>
      expect(dialog.getByTestId('engagement-count').textContent).toContain('1 recipient who clicked'),
    );
    fireEvent.change(dialog.getByLabelText(/Subject/), { target: { value: 'The blog, again' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Send to 1' }));
    await waitFor(() => expect(callsTo(fetchMock, RESEND)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, RESEND)[0]))).toEqual({
      audience: 'clicked',
      linkId: 12,
      subject: 'The blog, again',
    });
    expect(await screen.findByText('Your email is on its way to 1 recipient.')).toBeTruthy();
  });

  it('offers no send when nobody is left', async () => {
    stubApi({ [COUNT]: { count: 0, links: [], trackedOpens: true, trackedClicks: true } });
    renderWithApp(<EngagementResend sendId={7} accountId={3} subject="November news" />);
    fireEvent.click(screen.getByRole('button', { name: 'Send again to…' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Send to those who opened' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Send to those who opened' }));
    expect((await dialog.findByTestId('engagement-count')).textContent).toContain(
      'Nobody who opened it is left to send to.',
    );
    expect((dialog.getByRole('button', { name: 'Send to 0' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
