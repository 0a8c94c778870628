import nodeConsole from 'node:console';
import { pageMeta, type TTestInboxMessage, type TTestInboxMessageDetail } from '@sendwell/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { TestInboxPage } from './TestInboxPage';

const htmlMessage: TTestInboxMessage = {
  id: 2,
  mail_from: 'ada@example.com',
  rcpt_to: ['ada@example.com', 'grace@example.com'],
  subject: 'Sendwell SMTP test',
  size_bytes: 2048,
  created_at: '2026-11-22T09:30:00.000Z',
};
const textMessage: TTestInboxMessage = {
  id: 1,
  mail_from: 'news@example.com',
  rcpt_to: ['ada@example.com'],
  subject: 'Plain news',
  size_bytes: 300,
  created_at: '2026-11-21T08:00:00.000Z',
};

const detail = (message: TTestInboxMessage, extra: Partial<TTestInboxMessageDetail>): TTestInboxMessageDetail => ({
  ...message,
  text_body: null,
  has_html: false,
  ...extra,
});

const MESSAGES = 'GET /api/test-inbox/messages';

const stubInbox = (messages: TTestInboxMessage[], extra: Record<string, unknown> = {}) =>
  stubApi({
    [MESSAGES]: { data: messages, meta: pageMeta(messages.length, 1, 20) },
    'GET /api/test-inbox/messages/2': { data: detail(htmlMessage, { has_html: true, text_body: 'Hello in text' }) },
    'GET /api/test-inbox/messages/1': { data: detail(textMessage, { text_body: 'Only text here' }) },
    ...extra,
  });

const renderPage = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser({ time_zone: 'UTC' }));
  return renderWithApp(<TestInboxPage />, queryClient);
};

describe('TestInboxPage', () => {
  beforeEach(() => {
    stubWebSocket();
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('lists the messages newest first with sender, recipients and size', async () => {
    const fetchMock = stubInbox([htmlMessage, textMessage]);
    renderPage();

    const table = within(await screen.findByTestId('test-inbox-table'));
    expect(await table.findByText('Sendwell SMTP test')).toBeTruthy();
    expect(table.getByText('ada@example.com, grace@example.com')).toBeTruthy();
    expect(table.getByText('11/22/2026 9:30 AM')).toBeTruthy();
    expect(table.getByText('2.0 KB')).toBeTruthy();
    const query = new URL(
      String(fetchMock.mock.calls.find(([input]) => String(input).includes('/messages?'))?.[0]),
      'http://localhost',
    );
    expect(query.searchParams.get('column')).toBe('created_at');
    expect(query.searchParams.get('order')).toBe('desc');
  });

  it('previews HTML only in a frame with an empty sandbox', async () => {
    // happy-dom loads no frames and reports each one it skips to Node's own console; that is not a failure.
    const consoleError = nodeConsole.error;
    vi.spyOn(nodeConsole, 'error').mockImplementation((...args: unknown[]) => {
      if (!String(args[0]).includes('Iframe page loading is disabled')) consoleError(...args);
    });
    stubInbox([htmlMessage, textMessage]);
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Sendwell SMTP test' }));

    const preview = await screen.findByTestId('message-preview');
    const frame = await within(preview).findByTitle('Message preview');
    expect(frame.tagName).toBe('IFRAME');
    expect(frame.getAttribute('sandbox')).toBe('');
    expect(frame.getAttribute('src')).toBe('/api/test-inbox/messages/2/html');
    expect(preview.textContent).toContain('grace@example.com');

    // The text part is there too, for mail whose HTML hides something.
    fireEvent.click(within(preview).getByRole('radio', { name: 'Text' }));
    expect(within(preview).getByText('Hello in text')).toBeTruthy();
    expect(within(preview).queryByTitle('Message preview')).toBeNull();
  });

  it('shows a text-only message as text, opened by clicking anywhere on its row', async () => {
    stubInbox([htmlMessage, textMessage]);
    renderPage();
    const cell = await screen.findByText('news@example.com');
    fireEvent.click(cell);

    const preview = await screen.findByTestId('message-preview');
    expect(await within(preview).findByText('Only text here')).toBeTruthy();
    expect(preview.querySelector('iframe')).toBeNull();
  });

  it('refreshes the list and says so when a message arrives', async () => {
    const fetchMock = stubInbox([textMessage]);
    renderPage();
    await screen.findByText('Plain news');
    const before = callsTo(fetchMock, MESSAGES).length;

    act(() => pushRealtimeEvent('TestInboxMessageEvent', { id: 2, subject: 'Sendwell SMTP test' }));

    expect(await screen.findByText('New message: Sendwell SMTP test')).toBeTruthy();
    await waitFor(() => expect(callsTo(fetchMock, MESSAGES).length).toBeGreaterThan(before));
  });

  it('clears the inbox after asking', async () => {
    const fetchMock = stubInbox([htmlMessage], {
      'DELETE /api/test-inbox/messages': { status: true, message: 'The test inbox is empty.' },
    });
    renderPage();
    const clear = await screen.findByTestId('clear-inbox');
    await waitFor(() => expect((clear as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(clear);

    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Clear inbox' }));

    expect(await screen.findByText('The test inbox is empty.')).toBeTruthy();
    expect(callsTo(fetchMock, 'DELETE /api/test-inbox/messages')).toHaveLength(1);
  });
});
