import { ACCOUNT_MESSAGES, TEST_INBOX_DRIVER, type TSendingAccount } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildAccount, buildProviders, buildSmtpAccount } from '../../test/accounts';
import { callsTo, stubApi } from '../../test/api';
import { jsonResponse, renderWithApp } from '../../test/render';
import { AccountsPage } from './AccountsPage';

const ACCOUNTS = 'GET /api/settings/accounts';
const PROVIDERS = 'GET /api/settings/account/get-providers';
const CREATE = 'POST /api/settings/account/create-or-update';
const TEST_SMTP = 'POST /api/settings/account/send-test-smtp';
const TEST_PASSED = { status: true, result: true, message: 'The connection works. A test message was sent to you.' };

const stubAccounts = (accounts: TSendingAccount[], extra: Record<string, unknown> = {}, canCreate = true) =>
  stubApi({
    [ACCOUNTS]: { data: accounts },
    [PROVIDERS]: buildProviders({ canCreate }),
    ...extra,
  });

const saved = (account: TSendingAccount) => ({
  status: true,
  message: 'Your sending account has been saved.',
  data: account,
});

const bodiesOf = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  callsTo(fetchMock, key).map((body) => JSON.parse(String(body)));

const openAddForm = async () => {
  const add = await screen.findByTestId('add-account');
  await waitFor(() => expect((add as HTMLButtonElement).disabled).toBe(false));
  fireEvent.click(add);
  return screen.findByTestId('account-form');
};

const type = (form: HTMLElement, label: string, value: string) =>
  fireEvent.change(within(form).getByLabelText(label), { target: { value } });

const chooseProvider = (form: HTMLElement, label: string) =>
  fireEvent.click(within(form).getByRole('radio', { name: label }));

const saveButton = (form: HTMLElement) => within(form).getByTestId('account-save') as HTMLButtonElement;

/** An SMTP server account typed in full, ready for Test SMTP. */
const fillSmtpServer = (form: HTMLElement) => {
  chooseProvider(form, 'SMTP');
  type(form, 'SMTP Service', 'smtp');
  type(form, 'Account Name', 'Office server');
  type(form, 'Username', 'mailer');
  type(form, 'Password', 'secret');
  type(form, 'Host', 'smtp.example.com');
};

describe('AccountsPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists each account as an accordion item with its provider and the primary mark', async () => {
    stubAccounts([
      buildAccount({ id: 1, name: 'Newsletter', active: true }),
      buildSmtpAccount({ id: 2, name: 'Office server' }),
    ]);
    renderWithApp(<AccountsPage />);

    const mailgun = await screen.findByTestId('account-item-1');
    expect(mailgun.textContent).toContain('Newsletter');
    expect(mailgun.textContent).toContain('Mailgun');
    expect(mailgun.textContent).toContain('Primary Account');

    const smtp = screen.getByTestId('account-item-2');
    expect(smtp.textContent).toContain('SMTP');
    expect(smtp.textContent).not.toContain('Primary Account');

    fireEvent.click(within(smtp).getByRole('button', { name: /Office server/ }));
    expect(await within(smtp).findByText('smtp.example.com:587')).toBeTruthy();
    expect(within(smtp).getByText('SMTP server')).toBeTruthy();
    expect(within(smtp).getByRole('button', { name: 'Edit' })).toBeTruthy();
  });

  it("saves an account's circuit-breaker limits on their own, saying their ranges and refusing one outside beside its field", async () => {
    const account = buildSmtpAccount({ id: 2, name: 'Office server' });
    const fetchMock = stubAccounts([account], {
      'POST /api/settings/account/2/breaker': {
        status: true,
        message: 'The limits of this account are saved.',
        data: { ...account, breakerBouncePercent: 2, breakerComplaintPercent: 0.1 },
      },
    });
    renderWithApp(<AccountsPage />);
    const item = await screen.findByTestId('account-item-2');
    fireEvent.click(within(item).getByRole('button', { name: /Office server/ }));
    const limits = within(await within(item).findByRole('form', { name: 'Pause a send that hurts this sender' }));
    const bounces = limits.getByLabelText(/Hard bounces above/) as HTMLInputElement;
    expect(bounces.value).toBe('5 %');
    expect((limits.getByLabelText(/Spam complaints above/) as HTMLInputElement).value).toBe('0.1 %');
    expect(limits.getByText('From 0.5% to 50%.')).toBeTruthy();
    expect(limits.getByText('From 0.01% to 5%.')).toBeTruthy();

    for (const outside of ['0', '100', '']) {
      fireEvent.change(bounces, { target: { value: outside } });
      fireEvent.click(limits.getByRole('button', { name: 'Save limits' }));
      expect(await limits.findByText('The hard-bounce limit must be a number from 0.5% to 50%.')).toBeTruthy();
    }
    expect(callsTo(fetchMock, 'POST /api/settings/account/2/breaker')).toHaveLength(0);

    fireEvent.change(bounces, { target: { value: '2' } });
    fireEvent.click(limits.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('The limits of this account are saved.')).toBeTruthy();
    expect(bodiesOf(fetchMock, 'POST /api/settings/account/2/breaker')).toEqual([
      { breakerBouncePercent: 2, breakerComplaintPercent: 0.1 },
    ]);
  });

  it('connects the test inbox as it opens: Test SMTP, then Save succeeds without typing anything (issue 29 item 1)', async () => {
    const inbox = buildSmtpAccount({ id: 5, name: 'Test inbox', driver: TEST_INBOX_DRIVER, active: true });
    const fetchMock = stubAccounts([], { [TEST_SMTP]: TEST_PASSED, [CREATE]: saved(inbox) });
    renderWithApp(<AccountsPage />);
    fireEvent.click(await screen.findByTestId('connect-test-inbox'));
    const form = await screen.findByTestId('account-form');

    const name = within(form).getByLabelText('Account Name') as HTMLInputElement;
    expect(name.value).toBe('Test inbox');
    // No example that looks like a value in any field of the form.
    for (const input of within(form).queryAllByRole('textbox')) expect(input.getAttribute('placeholder')).toBeNull();

    fireEvent.click(within(form).getByTestId('smtp-test'));
    await waitFor(() => expect(saveButton(form).disabled).toBe(false));
    fireEvent.click(saveButton(form));
    expect(await screen.findByText('Your sending account has been saved.')).toBeTruthy();
    expect(bodiesOf(fetchMock, CREATE)[0]).toMatchObject({ name: 'Test inbox', driver: TEST_INBOX_DRIVER });
  });

  it('offers the test inbox when there are no accounts, with the server’s settings filled in', async () => {
    stubAccounts([]);
    renderWithApp(<AccountsPage />);

    expect(await screen.findByText('You have no sending accounts yet.')).toBeTruthy();
    fireEvent.click(await screen.findByTestId('connect-test-inbox'));

    const form = await screen.findByTestId('account-form');
    expect((within(form).getByLabelText('SMTP Service') as HTMLSelectElement).value).toBe(TEST_INBOX_DRIVER);
    const username = within(form).getByLabelText('Username') as HTMLInputElement;
    expect(username.value).toBe('user-1');
    expect(username.disabled).toBe(true);
    expect((within(form).getByLabelText('Host') as HTMLInputElement).value).toBe('127.0.0.1');
    expect((within(form).getByRole('switch', { name: /Primary Account/ }) as HTMLInputElement).checked).toBe(true);
  });

  it('shows a free plan the upgrade notice for other accounts but lets the test inbox through', async () => {
    const inbox = buildSmtpAccount({ id: 5, name: 'Try it', driver: TEST_INBOX_DRIVER, active: true });
    const fetchMock = stubAccounts([], { [TEST_SMTP]: TEST_PASSED, [CREATE]: saved(inbox) }, false);
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();

    chooseProvider(form, 'Mailgun');
    expect(within(form).getByText(ACCOUNT_MESSAGES.upgrade)).toBeTruthy();
    expect(
      within(form)
        .getByRole('link', { name: /Subscription/ })
        .getAttribute('href'),
    ).toBe('/settings/subscription');
    expect(saveButton(form).disabled).toBe(true);

    chooseProvider(form, 'SMTP');
    type(form, 'SMTP Service', 'sendgrid');
    expect(within(form).getByText(ACCOUNT_MESSAGES.upgrade)).toBeTruthy();
    expect(within(form).queryByTestId('smtp-test')).toBeNull();

    type(form, 'SMTP Service', TEST_INBOX_DRIVER);
    expect(within(form).queryByText(ACCOUNT_MESSAGES.upgrade)).toBeNull();
    type(form, 'Account Name', 'Try it');
    fireEvent.click(within(form).getByTestId('smtp-test'));
    await waitFor(() => expect(saveButton(form).disabled).toBe(false));
    fireEvent.click(saveButton(form));

    expect(await screen.findByText('Your sending account has been saved.')).toBeTruthy();
    expect(bodiesOf(fetchMock, CREATE)).toEqual([
      expect.objectContaining({
        provider: 'smtp',
        driver: TEST_INBOX_DRIVER,
        username: 'user-1',
        host: '127.0.0.1',
        port: 2525,
        encryption: 'tls',
      }),
    ]);
  });

  it('shows the upgrade notice when the server refuses for the plan', async () => {
    stubAccounts([], {
      [TEST_SMTP]: TEST_PASSED,
      [CREATE]: () => jsonResponse({ message: ACCOUNT_MESSAGES.upgrade, code: 'UPGRADE_REQUIRED', status: false }, 403),
    });
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    fillSmtpServer(form);
    fireEvent.click(within(form).getByTestId('smtp-test'));
    await waitFor(() => expect(saveButton(form).disabled).toBe(false));
    fireEvent.click(saveButton(form));

    expect(await within(form).findByText(ACCOUNT_MESSAGES.upgrade)).toBeTruthy();
  });

  it('keeps Save disabled until a passed Test, and again after a connection field changes', async () => {
    const fetchMock = stubAccounts([], { [TEST_SMTP]: TEST_PASSED, [CREATE]: saved(buildSmtpAccount()) });
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    fillSmtpServer(form);
    expect(saveButton(form).disabled).toBe(true);

    fireEvent.click(within(form).getByTestId('smtp-test'));
    expect(await within(form).findByText(TEST_PASSED.message)).toBeTruthy();
    expect(saveButton(form).disabled).toBe(false);
    // A passed test has done its job; the button comes back when it is needed again.
    expect(within(form).queryByTestId('smtp-test')).toBeNull();
    expect(bodiesOf(fetchMock, TEST_SMTP)).toEqual([
      {
        driver: 'smtp',
        username: 'mailer',
        password: 'secret',
        host: 'smtp.example.com',
        port: 587,
        encryption: 'tls',
        fromAddress: '',
      },
    ]);

    // The name is not part of the connection.
    type(form, 'Account Name', 'Office');
    expect(saveButton(form).disabled).toBe(false);

    type(form, 'Port', '2525');
    expect(saveButton(form).disabled).toBe(true);
    expect(within(form).queryByText(TEST_PASSED.message)).toBeNull();
    expect(within(form).getByTestId('smtp-test')).toBeTruthy();
  });

  it('says the password is required when Test is pressed without one', async () => {
    const fetchMock = stubAccounts([], { [TEST_SMTP]: TEST_PASSED });
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    fillSmtpServer(form);
    type(form, 'Password', '');

    fireEvent.click(within(form).getByTestId('smtp-test'));

    expect(await within(form).findByText(ACCOUNT_MESSAGES.passwordRequired)).toBeTruthy();
    expect(callsTo(fetchMock, TEST_SMTP)).toHaveLength(0);
    expect(saveButton(form).disabled).toBe(true);
  });

  it('shows the server’s password message, and the provider’s refusal in the form', async () => {
    stubAccounts([], {
      [TEST_SMTP]: () => jsonResponse({ status: false, message: ACCOUNT_MESSAGES.passwordRequired }, 422),
    });
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    fillSmtpServer(form);

    fireEvent.click(within(form).getByTestId('smtp-test'));

    const result = await within(form).findByTestId('smtp-test-result');
    expect(result.textContent).toBe(ACCOUNT_MESSAGES.passwordRequired);
    expect(saveButton(form).disabled).toBe(true);
  });

  it('shows a refused Mailgun key in the form', async () => {
    stubAccounts([], {
      [CREATE]: () =>
        jsonResponse({ status: false, message: 'Mailgun refused the API key.', code: 'ACCOUNT_CHECK_FAILED' }, 422),
    });
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    type(form, 'Account Name', 'Newsletter');
    type(form, 'Domain', 'mg.example.com');
    type(form, 'API key', 'key-wrong');
    fireEvent.click(saveButton(form));

    expect((await within(form).findByTestId('account-refused')).textContent).toBe('Mailgun refused the API key.');
  });

  it('checks the form before asking the server', async () => {
    const fetchMock = stubAccounts([]);
    renderWithApp(<AccountsPage />);
    const form = await openAddForm();
    fireEvent.click(saveButton(form));

    expect(await within(form).findByText(ACCOUNT_MESSAGES.nameRequired)).toBeTruthy();
    expect(within(form).getByText(ACCOUNT_MESSAGES.domainRequired)).toBeTruthy();
    expect(within(form).getByText(ACCOUNT_MESSAGES.apiKeyRequired)).toBeTruthy();
    expect(callsTo(fetchMock, CREATE)).toHaveLength(0);
  });

  it('edits a Mailgun account keeping its stored key when the field is left empty', async () => {
    const account = buildAccount({ id: 3, name: 'Newsletter', active: true });
    const fetchMock = stubAccounts([account], {
      'POST /api/settings/account/create-or-update/3': saved({ ...account, name: 'Weekly' }),
    });
    renderWithApp(<AccountsPage />);
    const item = await screen.findByTestId('account-item-3');
    fireEvent.click(within(item).getByRole('button', { name: /Newsletter/ }));
    const edit = await within(item).findByRole('button', { name: 'Edit' });
    await waitFor(() => expect((edit as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(edit);

    const form = await within(item).findByTestId('account-form');
    expect(within(form).getByLabelText('API key').getAttribute('placeholder')).toBe(account.apiKey);
    type(form, 'Account Name', 'Weekly');
    fireEvent.click(saveButton(form));

    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/settings/account/create-or-update/3')).toHaveLength(1));
    const [body] = bodiesOf(fetchMock, 'POST /api/settings/account/create-or-update/3');
    expect(body).toMatchObject({ name: 'Weekly', provider: 'mailgun', domain: 'mg.example.com' });
    expect(body).not.toHaveProperty('apiKey');
  });

  it('lets an unchanged SMTP account be saved without a new test, and tests a stored password by account', async () => {
    const account = buildSmtpAccount({ id: 4, name: 'Office server' });
    const fetchMock = stubAccounts([account], { [TEST_SMTP]: TEST_PASSED });
    renderWithApp(<AccountsPage />);
    const item = await screen.findByTestId('account-item-4');
    fireEvent.click(within(item).getByRole('button', { name: /Office server/ }));
    const edit = await within(item).findByRole('button', { name: 'Edit' });
    await waitFor(() => expect((edit as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(edit);

    const form = await within(item).findByTestId('account-form');
    expect(saveButton(form).disabled).toBe(false);
    type(form, 'From Address', 'news@example.com');
    expect(saveButton(form).disabled).toBe(true);

    fireEvent.click(within(form).getByTestId('smtp-test'));
    await waitFor(() => expect(saveButton(form).disabled).toBe(false));
    expect(bodiesOf(fetchMock, TEST_SMTP)).toEqual([expect.objectContaining({ password: '', accountId: 4 })]);
  });

  it('asks for the password again when the host, port or username of a stored one changes (R27)', async () => {
    const account = buildSmtpAccount({ id: 5, name: 'Office server' });
    const fetchMock = stubAccounts([account], { [TEST_SMTP]: TEST_PASSED });
    renderWithApp(<AccountsPage />);
    const item = await screen.findByTestId('account-item-5');
    fireEvent.click(within(item).getByRole('button', { name: /Office server/ }));
    const edit = await within(item).findByRole('button', { name: 'Edit' });
    await waitFor(() => expect((edit as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(edit);

    const form = await within(item).findByTestId('account-form');
    expect(within(form).getByLabelText('Password').getAttribute('placeholder')).toBe(
      'Leave empty to keep the stored one',
    );
    type(form, 'Host', 'smtp.elsewhere.test');
    expect(within(form).getByLabelText('Password').getAttribute('placeholder')).toBeNull();
    fireEvent.click(within(form).getByTestId('smtp-test'));

    expect((await within(form).findByTestId('smtp-test-result')).textContent).toBe(
      ACCOUNT_MESSAGES.passwordForChangedServer,
    );
    expect(callsTo(fetchMock, TEST_SMTP)).toHaveLength(0);

    type(form, 'Password', 'typed-again');
    fireEvent.click(within(form).getByTestId('smtp-test'));
    await waitFor(() => expect(saveButton(form).disabled).toBe(false));
    expect(bodiesOf(fetchMock, TEST_SMTP)).toEqual([
      expect.objectContaining({ host: 'smtp.elsewhere.test', password: 'typed-again' }),
    ]);
    expect(bodiesOf(fetchMock, TEST_SMTP)[0]).not.toHaveProperty('accountId');
  });

  it('asks before deleting an account, naming it', async () => {
    const fetchMock = stubAccounts([buildAccount({ id: 9, name: 'Old domain' })], {
      'DELETE /api/settings/account/delete-api/9': { status: true, message: 'Your sending account has been deleted.' },
    });
    renderWithApp(<AccountsPage />);
    const item = await screen.findByTestId('account-item-9');
    fireEvent.click(within(item).getByRole('button', { name: /Old domain/ }));
    fireEvent.click(await within(item).findByRole('button', { name: 'Delete' }));

    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Old domain');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Your sending account has been deleted.')).toBeTruthy();
    expect(callsTo(fetchMock, 'DELETE /api/settings/account/delete-api/9')).toHaveLength(1);
  });
});
