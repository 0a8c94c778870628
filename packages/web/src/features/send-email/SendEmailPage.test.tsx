import {
  dailyLimitPartialWarning,
  duplicatesWarning,
  SEND_MESSAGES,
  type TDuplicatesResponse,
  type TSendEmailContent,
} from '@sendwell/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { jsonResponse, renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { SendEmailPage } from './SendEmailPage';
import {
  buildContent,
  buildProgress,
  buildSendList,
  buildSmtpContent,
  buildSmtpSendAccount,
  buildTemplate,
} from './send-email.fixtures';

// The email editor (its own chunk, CodeMirror and tiptap) is driven in the browser journeys;
// here the form's flow is tested around a plain field standing in for it.
vi.mock('../../components/email-editor/LazyEmailEditor', () => ({
  LazyEmailEditor: ({
    id,
    value,
    onChange,
    error,
  }: {
    id: string;
    value: { html: string };
    onChange: (value: { html: string; document: null }) => void;
    error?: string;
  }) => (
    <div>
      <label htmlFor={id}>HTML message</label>
      <textarea
        id={id}
        value={value.html}
        onChange={(event) => onChange({ html: event.currentTarget.value, document: null })}
      />
      {error && <p>{error}</p>}
    </div>
  ),
}));

const CONTENT = 'GET /api/email/send-email-content';
const DUPLICATES = 'POST /api/email/get-duplicates';
const SEND = 'POST /api/email/send';
const PROGRESS = 'GET /api/email/sends/42';

const NO_DUPLICATES: TDuplicatesResponse = { duplicates: 0, recipients: 128, unverified: 0 };

const WAITING = 'GET /api/email/waiting-sends';

const stubPage = (content: TSendEmailContent = buildContent(), extra: Record<string, unknown> = {}) =>
  stubApi({
    [CONTENT]: { status: true, data: content },
    [DUPLICATES]: NO_DUPLICATES,
    [WAITING]: { data: [] },
    ...extra,
  });

const renderPage = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser());
  return renderWithApp(<SendEmailPage />, queryClient);
};

const bodiesOf = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  callsTo(fetchMock, key).map((body) => JSON.parse(String(body)));

const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** Opens a Mantine select by its label and clicks an option. */
const choose = async (label: string | RegExp, option: string | RegExp) => {
  fireEvent.click(screen.getByLabelText(label));
  fireEvent.click(await screen.findByRole('option', { name: option }));
};

/** Opens the lists multiselect, picks each list, and closes it as a keyboard user would. */
const chooseLists = async (...names: RegExp[]) => {
  const input = screen.getByLabelText(/^Mailing lists/) as HTMLInputElement;
  await waitFor(() => expect(input.disabled).toBe(false));
  fireEvent.click(input);
  for (const name of names) fireEvent.click(await screen.findByRole('option', { name }));
  fireEvent.keyDown(input, { key: 'Escape' });
  await waitFor(() => expect(screen.queryByRole('listbox')).toBeNull());
};

/** The form filled in for the Mailgun account of `buildContent`. */
const fillMailgunForm = async (...lists: RegExp[]) => {
  await screen.findByLabelText(/^Sender alias/);
  type(/^Sender Name/, 'Sam');
  type(/^Sender alias/, 'news');
  await chooseLists(...(lists.length > 0 ? lists : [/Weekly news/]));
  type(/^Subject/, 'Hello {{name::you}}');
  type(/^HTML message/, '<p>Hello {{name::there}}</p>');
};

const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Send' }));

/** Change Template (a button, spec §2.2), then the template's Use button in the gallery. */
const pickTemplate = async (name: string) => {
  fireEvent.click(screen.getByRole('button', { name: 'Change Template' }));
  const gallery = within(await screen.findByRole('dialog', { name: 'Choose a template' }));
  fireEvent.click(gallery.getByRole('button', { name: `Use ${name}` }));
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Choose a template' })).toBeNull());
};

describe('SendEmailPage', () => {
  beforeEach(() => {
    stubWebSocket();
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
  });

  it('asks an SMTP account for a sender name and shows it with the account address', async () => {
    const fetchMock = stubPage(buildSmtpContent());
    renderPage();
    await screen.findByLabelText(/^Sender Name/);

    expect(screen.queryByLabelText(/Sender alias/)).toBeNull();
    submit();

    expect(await screen.findByText(SEND_MESSAGES.senderNameRequired)).toBeTruthy();
    expect(screen.getByText(SEND_MESSAGES.listsRequired)).toBeTruthy();
    expect(screen.getByText(SEND_MESSAGES.subjectRequired)).toBeTruthy();
    expect(screen.getByText(SEND_MESSAGES.messageRequired)).toBeTruthy();
    expect(screen.queryByText(SEND_MESSAGES.aliasRequired)).toBeNull();
    await waitFor(() => expect(document.activeElement?.id).toBe('send-email-senderName'));
    expect(callsTo(fetchMock, DUPLICATES)).toHaveLength(0);

    type(/^Sender Name/, 'Office team');
    expect(screen.getByTestId('sender-preview').textContent).toBe('Office team <office@example.com>');
    expect(screen.queryByText(SEND_MESSAGES.senderNameRequired)).toBeNull();
  });

  it('asks a Mailgun account for an alias, with the read-only domain and the subdomain choice', async () => {
    stubPage();
    renderPage();
    await screen.findByLabelText(/^Sender alias/);
    submit();

    expect(await screen.findByText(SEND_MESSAGES.aliasRequired)).toBeTruthy();
    expect(screen.queryByText(SEND_MESSAGES.senderNameRequired)).toBeNull();
    await waitFor(() => expect(document.activeElement?.id).toBe('send-email-alias'));

    const domain = screen.getByLabelText('Sender domain') as HTMLInputElement;
    expect(domain.readOnly).toBe(true);
    expect(domain.value).toBe('example.com');
    type(/^Sender alias/, 'news');
    type(/^Sender Name/, 'Sam');
    expect(screen.getByTestId('sender-preview').textContent).toBe('Sam <news@example.com>');

    fireEvent.click(screen.getByRole('switch', { name: /Send from the subdomain/ }));
    expect(domain.value).toBe('mg.example.com');
    expect(screen.getByTestId('sender-preview').textContent).toBe('Sam <news@mg.example.com>');
  });

  it('previews the message in an empty sandbox with a CSP, and runs none of what the user typed', async () => {
    stubPage();
    renderPage();
    await screen.findByLabelText(/^Sender alias/);
    type(/^Sender Name/, 'Sam <img src=x onerror="window.__pwned = true">');
    type(/^Subject/, 'News for {{name::you}} <script>window.__pwned = true</script>');
    type(
      /^HTML message/,
      '<!doctype html><html><body><p>Hello {{name::there}},</p><script>window.parent.__pwned = true</script></body></html>',
    );

    // The frame follows once typing pauses.
    await waitFor(() => expect(screen.getByTitle('Email preview').getAttribute('srcdoc')).toContain('Hello Ada'));
    const frame = screen.getByTitle('Email preview') as HTMLIFrameElement;
    expect(frame.getAttribute('sandbox')).toBe('');
    expect(frame.getAttribute('sandbox')).not.toContain('allow-scripts');
    expect(frame.getAttribute('sandbox')).not.toContain('allow-same-origin');
    const srcDoc = frame.getAttribute('srcdoc') ?? '';
    expect(srcDoc.startsWith('<!doctype html><meta http-equiv="Content-Security-Policy"')).toBe(true);
    expect(srcDoc).toContain("default-src 'none'");
    expect(srcDoc).toContain('Hello Ada Lovelace,');

    // Subject and sender are text in the page: no element was made from them.
    const headers = screen.getByTestId('preview-headers');
    expect(headers.textContent).toContain('News for Ada Lovelace <script>window.__pwned = true</script>');
    expect(headers.textContent).toContain('Sam <img src=x onerror="window.__pwned = true">');
    expect(document.querySelectorAll('script')).toHaveLength(0);
    expect(document.querySelector('img[src="x"]')).toBeNull();
    expect(screen.getByText(/Merge fields:/).textContent).toContain('{{field::fallback}}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBeUndefined();
  });

  it('says once, in the confirmation, that recipients were never verified: the risk, the cost, and Verify, then send', async () => {
    const COST = 'POST /api/email/verify-credit-check';
    const VERIFY = 'POST /api/mailing-lists/verify';
    const fetchMock = stubPage(buildContent(), {
      [DUPLICATES]: { duplicates: 2, recipients: 126, unverified: 5 },
      [COST]: { status: true, count: 3, controlled: 2, totalCount: 5 },
      [VERIFY]: { status: true, message: 'Verification started.', checkListId: 9, total: 5, checkedLists: [5, 6] },
    });
    renderPage();
    await fillMailgunForm(/Weekly news/, /VIP/);
    submit();

    // No dialog of its own first: the duplicates, then the confirmation.
    const duplicates = within(await screen.findByRole('dialog', { name: 'Duplicate addresses' }));
    expect(screen.queryByRole('dialog', { name: 'Verify your lists first?' })).toBeNull();
    expect(duplicates.getByText(duplicatesWarning(2))).toBeTruthy();
    expect(bodiesOf(fetchMock, DUPLICATES)).toEqual([{ mailingLists: [5, 6] }]);
    fireEvent.click(duplicates.getByRole('button', { name: 'Continue' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
    expect(confirm.getByTestId('confirm-recipients').textContent).toBe('126');
    expect(confirm.getByText('Sam <news@example.com>')).toBeTruthy();
    expect(confirm.getByText('Weekly news')).toBeTruthy();
    expect(confirm.getByText('VIP')).toBeTruthy();
    // One warning, accurate: bounces and reputation, not a "spam score"; what verifying costs.
    const warning = within(confirm.getByTestId('unverified-warning'));
    expect(warning.getByText('5 recipients were never verified')).toBeTruthy();
    expect(confirm.getByTestId('unverified-warning').textContent).toContain(SEND_MESSAGES.unverified);
    expect(confirm.getByTestId('unverified-warning').textContent).not.toMatch(/spam score/);
    await waitFor(() =>
      expect(confirm.getByTestId('unverified-cost').textContent).toBe(
        'Verifying them costs 3 credits (one per address not checked before); you have 960.',
      ),
    );
    expect(bodiesOf(fetchMock, COST)).toEqual([{ mailingLists: [5, 6] }]);
    // Verify, then send opens the upsell in its place; Back returns to the confirmation, nothing done.
    fireEvent.click(warning.getByRole('button', { name: 'Verify, then send' }));
    const upsell = within(await screen.findByRole('dialog', { name: 'Verify the lists, then send' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Send this email?' })).toBeNull());
    fireEvent.click(upsell.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('dialog', { name: 'Send this email?' })).toBeTruthy();
    expect(callsTo(fetchMock, VERIFY)).toHaveLength(0);
    expect(callsTo(fetchMock, SEND)).toHaveLength(0);
  });

  it("offers only to schedule when an SMTP account's balance for today is 0", async () => {
    stubPage(buildSmtpContent({ dailyCount: 500 }));
    renderPage();
    await screen.findByLabelText(/^Sender Name/);
    type(/^Sender Name/, 'Office');
    await chooseLists(/Weekly news/);
    type(/^Subject/, 'Hello');
    type(/^HTML message/, '<p>Hi</p>');
    submit();

    const warning = within(await screen.findByRole('dialog', { name: 'Daily sending limit' }));
    expect(warning.getByText(SEND_MESSAGES.dailyLimitZero)).toBeTruthy();
    expect(warning.getAllByRole('button').map((button) => button.textContent)).toEqual([
      '',
      'Cancel',
      'Schedule instead',
    ]);
    fireEvent.click(warning.getByRole('button', { name: 'Schedule instead' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(document.activeElement?.id).toBe('send-email-delivery'));
  });

  it("lets an SMTP send go on when part of the audience fits in today's balance", async () => {
    stubPage(buildSmtpContent({ dailyCount: 499 }), { [DUPLICATES]: { duplicates: 0, recipients: 3, unverified: 0 } });
    renderPage();
    await screen.findByLabelText(/^Sender Name/);
    type(/^Sender Name/, 'Office');
    await chooseLists(/Weekly news/);
    type(/^Subject/, 'Hello');
    type(/^HTML message/, '<p>Hi</p>');
    submit();

    const warning = within(await screen.findByRole('dialog', { name: 'Daily sending limit' }));
    expect(warning.getByText(dailyLimitPartialWarning(1))).toBeTruthy();
    expect(warning.queryByRole('button', { name: 'Schedule instead' })).toBeNull();
    fireEvent.click(warning.getByRole('button', { name: 'Continue' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
    expect(confirm.getByText('Office <office@example.com>')).toBeTruthy();
  });

  it('disables scheduling with the upgrade notice when the plan does not allow it', async () => {
    stubPage(buildContent({ allowsScheduling: false }));
    renderPage();
    await screen.findByLabelText(/^Sender alias/);

    expect((screen.getByLabelText('Delivery date') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByLabelText('Delivery time') as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByText(SEND_MESSAGES.scheduleUpgrade, { exact: false })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'See the plans' }).getAttribute('href')).toBe('/settings/subscription');
    expect(screen.getByText(/Times are in your time zone, America\/New York \(UTC−0[45]:00\)/)).toBeTruthy();
  });

  it('fills the message and an empty subject from a template, and asks before replacing a written message', async () => {
    stubPage(
      buildContent({
        templates: [
          buildTemplate(),
          buildTemplate({ id: 7, name: 'My promo', subject: 'Promo', html: '<p>Promo</p>', builtIn: false }),
        ],
      }),
    );
    renderPage();
    await screen.findByLabelText(/^Sender alias/);

    await pickTemplate('Simple announcement');
    expect(screen.getByTestId('chosen-template').textContent).toBe('Simple announcement');
    const message = screen.getByLabelText(/^HTML message/) as HTMLTextAreaElement;
    expect(message.value).toBe(buildTemplate().html);
    expect((screen.getByLabelText(/^Subject/) as HTMLInputElement).value).toBe('News from us');

    type(/^HTML message/, '<p>Mine</p>');
    await pickTemplate('My promo');
    const replace = within(await screen.findByRole('dialog', { name: 'Replace your message?' }));
    fireEvent.click(replace.getByRole('button', { name: 'Keep my message' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(message.value).toBe('<p>Mine</p>');

    await pickTemplate('My promo');
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Replace your message?' })).getByRole('button', {
        name: 'Replace',
      }),
    );
    await waitFor(() => expect(message.value).toBe('<p>Promo</p>'));
    // The subject the template filled in before is kept.
    expect((screen.getByLabelText(/^Subject/) as HTMLInputElement).value).toBe('News from us');
  });

  it('opens Change Template as a gallery: starting templates and your own apart, found by a search', async () => {
    stubPage(
      buildContent({
        templates: [
          buildTemplate({ description: 'A short note for news' }),
          buildTemplate({ id: 7, name: 'My promo', subject: 'Promo', html: '<p>Promo</p>', builtIn: false }),
        ],
      }),
    );
    renderPage();
    await screen.findByLabelText(/^Sender alias/);
    expect(screen.getByTestId('chosen-template').textContent).toBe('none');
    expect(screen.queryByRole('combobox', { name: /Template/ })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Change Template' }));
    const gallery = within(await screen.findByRole('dialog', { name: 'Choose a template' }));
    const starting = within(gallery.getByRole('region', { name: 'Starting templates' }));
    expect(
      starting.getByRole('button', { name: 'Use Simple announcement' }).getAttribute('aria-describedby'),
    ).toBeTruthy();
    expect(starting.getByText('A short note for news')).toBeTruthy();
    expect(within(gallery.getByRole('region', { name: 'Your templates' })).getByText('My promo')).toBeTruthy();

    fireEvent.change(gallery.getByLabelText('Search templates'), { target: { value: 'promo' } });
    expect(gallery.queryByRole('region', { name: 'Starting templates' })).toBeNull();
    fireEvent.change(gallery.getByLabelText('Search templates'), { target: { value: 'nothing like it' } });
    expect(gallery.getByText('No template by that name.')).toBeTruthy();
  });

  it('verifies the lists, then sends: the cost before anything is charged, a progress bar, and the send by itself when the verification ends', async () => {
    const waiting = (checked: number) => ({
      storageId: 'set-by-the-page',
      subject: 'Hello {{name::you}}',
      listIds: [5],
      status: 'waiting' as const,
      sendId: null,
      error: null,
      leaveOutInvalid: true,
      verification: { jobs: [31], total: 4, checked, valid: checked, invalid: 0, unknown: 0 },
    });
    let checked = 0;
    let storageId = '';
    const fetchMock = stubPage(buildContent(), {
      [DUPLICATES]: { duplicates: 0, recipients: 6, unverified: 4 },
      'POST /api/email/verify-credit-check': { status: true, count: 3, controlled: 1, totalCount: 4 },
      'POST /api/mailing-lists/verify': (request: { body: BodyInit | null | undefined }) => {
        storageId = JSON.parse(String(request.body)).storageId;
        return jsonResponse({ status: true, message: 'Queued', checkListId: 31, total: 4, checkedLists: [5] });
      },
      [SEND]: () =>
        jsonResponse({
          status: true,
          message: 'Your lists are being verified.',
          sendId: null,
          scheduled: false,
          waiting: { ...waiting(0), storageId },
        }),
      [WAITING]: () => jsonResponse({ data: storageId ? [{ ...waiting(checked), storageId }] : [] }),
      'POST /api/email/pre-send-check': () => jsonResponse({ status: false, message: 'not here' }, 500),
      [PROGRESS]: { data: buildProgress() },
    });
    const queryClient = createQueryClient();
    queryClient.setQueryData(USER_QUERY_KEY, buildUser({ credit: { totalCredit: 50, usedCredit: 0 } }));
    renderWithApp(<SendEmailPage />, queryClient);
    await fillMailgunForm();
    submit();
    const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
    // The warning says the cost first; its button waits for it.
    await waitFor(() => expect(confirm.getByTestId('unverified-cost').textContent).toContain('costs 3 credits'));
    fireEvent.click(
      within(confirm.getByTestId('unverified-warning')).getByRole('button', { name: 'Verify, then send' }),
    );
    const upsell = within(await screen.findByRole('dialog', { name: 'Verify the lists, then send' }));
    // The cost before anything is charged.
    expect((await upsell.findByTestId('upsell-cost')).textContent).toBe(
      'Verifying them costs 3 credits (one per address not checked before); you have 50.',
    );
    expect(callsTo(fetchMock, 'POST /api/mailing-lists/verify')).toHaveLength(0);
    expect((upsell.getByRole('checkbox') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(upsell.getByRole('button', { name: 'Verify, then send' }));

    // The lists verified for the cost shown, then the form sent with the same storage id.
    await waitFor(() => expect(callsTo(fetchMock, SEND)).toHaveLength(1));
    const verified = bodiesOf(fetchMock, 'POST /api/mailing-lists/verify')[0];
    expect(verified).toEqual({
      mailingLists: [5],
      storageId: expect.stringMatching(/^upsell-[0-9a-f]{24}$/),
      creditsToBeUsed: 3,
    });
    expect(bodiesOf(fetchMock, SEND)[0]).toMatchObject({
      to: [5],
      storageId: verified.storageId,
      leaveOutInvalid: true,
    });

    // The progress bar, live, in the dialog and on the page.
    expect(await upsell.findByRole('progressbar', { name: 'Verification of the lists' })).toBeTruthy();
    expect(await screen.findByTestId('waiting-send')).toBeTruthy();
    checked = 2;
    act(() => pushRealtimeEvent('VerifyEmailUpsell', { checkListId: 31, data: { valid: 2, unknown: 0, invalid: 0 } }));
    await waitFor(() =>
      expect(screen.getAllByTestId('verification-checked').map((item) => item.textContent)).toContain(
        '2 of 4 addresses checked',
      ),
    );
    expect(screen.getByTestId('waiting-send').textContent).toContain('It goes out by itself');

    // The verification ended: the send went out by itself; its progress card takes the waiting card's place.
    storageId = '';
    act(() => pushRealtimeEvent('UpsellStart', { mailingListIds: [5], storageId: verified.storageId, sendId: 42 }));
    expect(await screen.findByTestId('send-progress')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Verify the lists, then send' })).toBeNull());
    await waitFor(() => expect(screen.queryByTestId('waiting-send')).toBeNull());
  });

  it('sends with the exact body and follows the progress live', async () => {
    let progress = buildProgress();
    const fetchMock = stubPage(buildContent(), {
      [SEND]: { status: true, message: SEND_MESSAGES.sent, sendId: 42, scheduled: false },
      [PROGRESS]: () => jsonResponse({ data: progress }),
    });
    renderPage();
    await fillMailgunForm();
    type(/^CC/, 'boss@example.com');
    fireEvent.click(screen.getByRole('switch', { name: 'Track clicks' }));
    submit();

    const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
    fireEvent.click(confirm.getByRole('button', { name: 'Yes, send it' }));

    await waitFor(() => expect(callsTo(fetchMock, SEND)).toHaveLength(1));
    expect(bodiesOf(fetchMock, SEND)[0]).toEqual({
      account: 1,
      from: 'Sam <news@example.com>',
      senderName: 'Sam',
      alias: 'news',
      useSubdomain: false,
      to: [5],
      subject: 'Hello {{name::you}}',
      cc: 'boss@example.com',
      bcc: '',
      reply: '',
      message: '<p>Hello {{name::there}}</p>',
      document: null,
      delivery: '',
      sendLater: false,
      trackOpens: true,
      trackClicks: false,
      // The A/B test's fields as the schema's defaults give them: off.
      abTest: false,
      subjectB: '',
      subjectC: '',
      abTestPercent: 20,
      abWaitMinutes: 240,
      abMetric: 'opens',
    });

    const card = within(await screen.findByTestId('send-progress'));
    expect(await card.findByText('1 of 3 recipients handled (33%)')).toBeTruthy();
    expect(card.getByText('sending')).toBeTruthy();
    expect(card.getByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(await screen.findByText(SEND_MESSAGES.sent)).toBeTruthy();
    // The form is ready for the next email from the same sender.
    expect((screen.getByLabelText(/^Subject/) as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText(/^Sender alias/) as HTMLInputElement).value).toBe('news');

    progress = buildProgress({ status: 'finished', sent_count: 2, failed_count: 1, waiting_count: 0 });
    act(() =>
      pushRealtimeEvent('SendProgressEvent', {
        id: 42,
        status: 'finished',
        recipients_count: 3,
        sent_count: 2,
        failed_count: 1,
        unknown_count: 0,
        note: null,
      }),
    );
    expect(await card.findByText('3 of 3 recipients handled (100%)')).toBeTruthy();
    expect(card.getByText('finished')).toBeTruthy();
    expect(card.queryByRole('button', { name: 'Pause' })).toBeNull();
    await waitFor(() => expect(callsTo(fetchMock, PROGRESS).length).toBeGreaterThanOrEqual(2));
  });

  it('pauses a running send, and cancels only after asking', async () => {
    const fetchMock = stubPage(buildContent(), {
      [SEND]: { status: true, message: SEND_MESSAGES.sent, sendId: 42, scheduled: false },
      [PROGRESS]: { data: buildProgress({ note: 'The daily limit was reached; the rest goes out tomorrow.' }) },
      'POST /api/email/sends/42/pause': { status: true, message: 'The send is paused.' },
      'POST /api/email/sends/42/cancel': { status: true, message: 'The send is cancelled.' },
    });
    renderPage();
    await fillMailgunForm();
    submit();
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Send this email?' })).getByRole('button', {
        name: 'Yes, send it',
      }),
    );

    const card = within(await screen.findByTestId('send-progress'));
    expect(await card.findByText('The daily limit was reached; the rest goes out tomorrow.')).toBeTruthy();
    fireEvent.click(card.getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/email/sends/42/pause')).toHaveLength(1));

    fireEvent.click(card.getByRole('button', { name: 'Cancel' }));
    const ask = within(await screen.findByRole('dialog', { name: 'Cancel this send?' }));
    expect(callsTo(fetchMock, 'POST /api/email/sends/42/cancel')).toHaveLength(0);
    fireEvent.click(ask.getByRole('button', { name: 'Cancel the send' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/email/sends/42/cancel')).toHaveLength(1));
  });

  it('shows the pre-send checklist in the confirmation, each group expandable, and asks "send anyway?" when a check fails', async () => {
    const PRE_SEND = 'POST /api/email/pre-send-check';
    const fetchMock = stubPage(buildContent(), {
      [DUPLICATES]: { duplicates: 0, recipients: 128, unverified: 20 },
      'POST /api/email/verify-credit-check': { status: true, count: 20, controlled: 0, totalCount: 20 },
      [SEND]: { status: true, message: SEND_MESSAGES.sent, sendId: 42, scheduled: false },
      [PROGRESS]: { data: buildProgress() },
      [PRE_SEND]: {
        items: [
          {
            id: 'spf',
            group: 'domain',
            title: 'SPF',
            status: 'fail',
            detail: 'example.com publishes no SPF record.',
            advice: 'Add a TXT record to example.com that allows your server.',
          },
          { id: 'dmarc', group: 'domain', title: 'DMARC', status: 'pass', detail: 'Policy quarantine.', advice: null },
          {
            id: 'message-score',
            group: 'message',
            title: 'Content score',
            status: 'pass',
            detail: '9.5 of 10.',
            advice: null,
          },
          {
            id: 'unverified',
            group: 'lists',
            title: 'Unverified addresses',
            status: 'warn',
            detail: '20 of 128 recipients (15.6%) were never verified.',
            advice: 'Verify the lists first.',
          },
          {
            id: 'generic',
            group: 'lists',
            title: 'Generic addresses',
            status: 'warn',
            detail: '13 of 128 recipients (10.2%) are role addresses such as info@ or sales@.',
            advice: 'Consider leaving them out.',
          },
        ],
        messageScore: 9.5,
        audience: 128,
        hasFailures: true,
      },
    });
    renderPage();
    await fillMailgunForm();
    submit();
    const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
    const checklist = within(await confirm.findByTestId('pre-send-checklist'));
    // The form as it would be sent is what was checked.
    expect(bodiesOf(fetchMock, PRE_SEND)[0]).toMatchObject({ subject: expect.any(String), to: expect.any(Array) });
    const domain = within(checklist.getByTestId('pre-send-domain'));
    expect(domain.getByText('1 to fix')).toBeTruthy();
    const lists = within(checklist.getByTestId('pre-send-lists'));
    expect(lists.getByText('1 to check')).toBeTruthy();
    // The unverified item is the warning above the checklist, not repeated in it.
    expect(confirm.getByTestId('unverified-warning').textContent).toContain('20 recipients were never verified');
    fireEvent.click(lists.getByRole('button', { name: /Lists/ }));
    expect(await lists.findByText('Generic addresses')).toBeTruthy();
    expect(lists.queryByText('Unverified addresses')).toBeNull();
    expect(within(checklist.getByTestId('pre-send-message')).getByText('Message (9.5 of 10)')).toBeTruthy();
    // Folded until asked; expanded, each item says what to do.
    fireEvent.click(domain.getByRole('button', { name: /Sending domain/ }));
    expect(await domain.findByText('example.com publishes no SPF record.')).toBeTruthy();
    expect(domain.getByText('What to do: Add a TXT record to example.com that allows your server.')).toBeTruthy();
    expect(confirm.getByTestId('pre-send-failures').textContent).toContain('Send it anyway?');
    // Nothing is blocked: the user answers yes and it goes.
    fireEvent.click(confirm.getByRole('button', { name: 'Yes, send it' }));
    await waitFor(() => expect(callsTo(fetchMock, SEND)).toHaveLength(1));
  });

  it("puts the server's field errors beside the fields", async () => {
    stubPage(buildContent(), {
      [SEND]: () =>
        jsonResponse(
          { message: 'The given data was invalid.', errors: { reply: [SEND_MESSAGES.replyToInvalid] } },
          422,
        ),
    });
    renderPage();
    await fillMailgunForm();
    submit();
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Send this email?' })).getByRole('button', {
        name: 'Yes, send it',
      }),
    );

    expect(await screen.findByText(SEND_MESSAGES.replyToInvalid)).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(document.activeElement?.id).toBe('send-email-reply'));
  });

  it("loads another account's lists when the account changes", async () => {
    const fetchMock = stubPage(buildContent({ accounts: [buildContent().accounts[0]!, buildSmtpSendAccount()] }), {
      'GET /api/email/get-mailing-lists/2': {
        status: true,
        listData: [buildSendList({ id: 9, name: 'Office list', address: 'team@example.com' })],
        isSmtp: true,
        smtpLimit: 500,
        dailyCount: 0,
      },
    });
    renderPage();
    await screen.findByLabelText(/^Sender alias/);

    await choose(/^Account/, /Office/);
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/email/get-mailing-lists/2')).toHaveLength(1));
    expect(screen.queryByLabelText(/^Sender alias/)).toBeNull();
    await chooseLists(/Office list/);
    expect(screen.getByText(/Office list · team@example.com/)).toBeTruthy();
  });

  it('sends a user without accounts to Sending Accounts, and one without lists to Mailing Lists', async () => {
    stubPage(buildContent({ chosenAccount: null, accounts: [], mailingLists: [] }));
    const { unmount } = renderPage();
    expect((await screen.findByRole('link', { name: 'Go to Sending Accounts' })).getAttribute('href')).toBe(
      '/settings/accounts',
    );
    unmount();

    stubPage(buildContent({ mailingLists: [] }));
    renderPage();
    expect((await screen.findByRole('link', { name: 'Create a list on Mailing Lists' })).getAttribute('href')).toBe(
      '/mailing-lists',
    );
    submit();
    expect(await screen.findByText(SEND_MESSAGES.listsRequired)).toBeTruthy();
  });

  it("schedules from the confirmation with a day and a time in the user's zone", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // 10:00 AM in New York.
    vi.setSystemTime(new Date('2026-11-22T15:00:00Z'));
    try {
      const fetchMock = stubPage(buildContent(), {
        [SEND]: { status: true, message: SEND_MESSAGES.scheduled, sendId: 43, scheduled: true },
      });
      renderPage();
      await fillMailgunForm();
      submit();

      const confirm = within(await screen.findByRole('dialog', { name: 'Send this email?' }));
      fireEvent.click(confirm.getByRole('switch', { name: /Send later/ }));
      fireEvent.click(confirm.getByRole('button', { name: 'Yes, send it' }));
      expect(await confirm.findByText(SEND_MESSAGES.deliveryRequired)).toBeTruthy();
      expect(callsTo(fetchMock, SEND)).toHaveLength(0);

      fireEvent.click(confirm.getByLabelText('Delivery date'));
      expect((confirm.getByRole('button', { name: '21 November 2026' }) as HTMLButtonElement).disabled).toBe(true);
      fireEvent.click(confirm.getByRole('button', { name: '25 November 2026' }));
      fireEvent.click(confirm.getByLabelText('Delivery time'));
      fireEvent.click(await confirm.findByRole('option', { name: '02:30 PM' }));
      fireEvent.click(confirm.getByRole('button', { name: 'Yes, send it' }));

      await waitFor(() => expect(callsTo(fetchMock, SEND)).toHaveLength(1));
      expect(bodiesOf(fetchMock, SEND)[0]).toMatchObject({ delivery: '2026-11-25 02:30 PM', sendLater: true });
      const notice = await screen.findByTestId('send-scheduled');
      expect(notice.textContent).toContain('goes out on 2026-11-25 02:30 PM (America/New_York)');
      expect(screen.queryByTestId('send-progress')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("offers Test My Mail from the server's spam test price, not a fixed 100", async () => {
    // 60 usable credits: enough for a 40-credit test, though not for the default 100.
    stubPage(buildContent({ spamTestCredits: 40, totalCredit: 100, usedCredit: 40 }));
    const first = renderPage();
    await screen.findByLabelText(/^Sender alias/);
    expect(screen.getByRole('button', { name: 'Test My Mail' })).toBeTruthy();
    first.unmount();
    vi.unstubAllGlobals();
    stubWebSocket();

    stubPage(buildContent({ spamTestCredits: 80, totalCredit: 100, usedCredit: 40 }));
    renderPage();
    await screen.findByLabelText(/^Sender alias/);
    expect(screen.queryByRole('button', { name: 'Test My Mail' })).toBeNull();
  });

  it("saves the message as a template of the user's own and offers it in the picker", async () => {
    const fetchMock = stubPage(buildContent(), {
      'POST /api/templates': {
        status: true,
        message: SEND_MESSAGES.templateSaved,
        data: buildTemplate({ id: 9, name: 'Monthly', subject: 'Hi', html: '<p>Mine</p>', builtIn: false }),
      },
    });
    renderPage();
    await screen.findByLabelText(/^Sender alias/);
    type(/^Subject/, 'Hi');
    type(/^HTML message/, '<p>Mine</p>');
    fireEvent.click(screen.getByRole('button', { name: 'Save as template' }));

    const dialog = within(await screen.findByRole('dialog', { name: 'Save as template' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Save template' }));
    expect(await dialog.findByText(SEND_MESSAGES.templateNameRequired)).toBeTruthy();
    fireEvent.change(dialog.getByLabelText(/^Template name/), { target: { value: 'Monthly' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Save template' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(bodiesOf(fetchMock, 'POST /api/templates')).toEqual([
      { name: 'Monthly', subject: 'Hi', html: '<p>Mine</p>', document: null },
    ]);
    await waitFor(() => expect(screen.getByTestId('chosen-template').textContent).toBe('Monthly'));
    expect(screen.getByRole('button', { name: 'Delete this template' })).toBeTruthy();
  });
});
