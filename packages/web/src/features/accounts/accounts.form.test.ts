import { TEST_INBOX_DRIVER } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import { buildProviders, buildSmtpAccount } from '../../test/accounts';
import {
  chooseProvider,
  chooseService,
  initialValues,
  isStoredPasswordUsable,
  needsUpgrade,
  smtpServiceOptions,
  smtpSignature,
  toSaveRequest,
  toTestRequest,
} from './accounts.form';

const providers = buildProviders();
const services = smtpServiceOptions(providers);
const context = { services, testInbox: providers.testInbox, canCreate: true };
const blank = initialValues(undefined, { ...context, isFirstAccount: false });

describe('the DKIM selector', () => {
  it('goes with an SMTP account, is read back from a saved one, and leaves the SMTP test alone', () => {
    const smtp = chooseService({ ...blank, provider: 'smtp' }, 'smtp', services, providers.testInbox);
    expect(toSaveRequest({ ...smtp, dkimSelector: 'mail2024' }, services)).toMatchObject({ dkimSelector: 'mail2024' });
    expect(toSaveRequest({ ...blank, name: 'M', domain: 'mg.example.com', apiKey: 'k' }, services)).not.toHaveProperty(
      'dkimSelector',
    );
    expect(smtpSignature({ ...smtp, dkimSelector: 's1' })).toBe(smtpSignature(smtp));
    const saved = initialValues(
      { ...buildSmtpAccount(), dkimSelector: 'mail2024' },
      { ...context, isFirstAccount: false },
    );
    expect(saved.dkimSelector).toBe('mail2024');
  });
});

describe('account form values', () => {
  it('offers the test inbox first, then the server’s services', () => {
    expect(services.map((service) => service.driver).slice(0, 3)).toEqual([TEST_INBOX_DRIVER, 'smtp', 'sendgrid']);
    expect(smtpServiceOptions(buildProviders({ testInbox: null }))[0]?.driver).toBe('smtp');
  });

  it('fills host, port, encryption and the daily default from a chosen service', () => {
    const values = chooseService({ ...blank, provider: 'smtp' }, 'sendgrid', services, providers.testInbox);
    expect(values).toMatchObject({ host: 'smtp.sendgrid.net', port: 587, encryption: 'tls', mailPerDay: 100 });
    // Zoho allows no more than its default: the form does not ask.
    expect(chooseService(values, 'zoho', services, providers.testInbox).mailPerDay).toBe('');
  });

  it('brings the server’s login with the test inbox and drops it when another service is chosen', () => {
    const inbox = chooseService({ ...blank, provider: 'smtp' }, TEST_INBOX_DRIVER, services, providers.testInbox);
    expect(inbox).toMatchObject({ username: 'user-1', password: 'inbox-secret', host: '127.0.0.1', port: 2525 });

    const other = chooseService(inbox, 'smtp', services, providers.testInbox);
    expect(other).toMatchObject({ username: '', password: '', host: '', port: 587 });
  });

  it('names a new test-inbox account Test inbox, keeps a name the user typed, and drops its own name on leaving', () => {
    const inbox = chooseService({ ...blank, provider: 'smtp' }, TEST_INBOX_DRIVER, services, providers.testInbox);
    expect(inbox.name).toBe('Test inbox');
    expect(chooseService(inbox, 'smtp', services, providers.testInbox).name).toBe('');
    const named = { ...blank, provider: 'smtp' as const, name: 'My tryout' };
    const kept = chooseService(named, TEST_INBOX_DRIVER, services, providers.testInbox);
    expect(kept.name).toBe('My tryout');
    expect(chooseService(kept, 'smtp', services, providers.testInbox).name).toBe('My tryout');
  });

  it('starts a free plan on the test inbox and asks it to upgrade for anything else', () => {
    const free = { ...context, canCreate: false };
    const values = initialValues(undefined, { ...free, isFirstAccount: true });
    expect(values).toMatchObject({ provider: 'smtp', driver: TEST_INBOX_DRIVER, active: true });
    expect(needsUpgrade(values, { canCreate: false })).toBe(false);

    expect(needsUpgrade(chooseProvider(values, 'mailgun', free), { canCreate: false })).toBe(true);
    const sendgrid = chooseService(values, 'sendgrid', services, providers.testInbox);
    expect(needsUpgrade(sendgrid, { canCreate: false })).toBe(true);
    expect(needsUpgrade(sendgrid, { canCreate: true })).toBe(false);
  });

  it('asks a free plan to upgrade when an existing account is saved as anything but the test inbox (R23)', () => {
    const inbox = initialValues(buildSmtpAccount({ id: 9, driver: TEST_INBOX_DRIVER }), {
      ...context,
      canCreate: false,
      isFirstAccount: false,
    });
    expect(needsUpgrade(inbox, { canCreate: false })).toBe(false);
    expect(needsUpgrade(chooseProvider(inbox, 'mailgun', { ...context, canCreate: false }), { canCreate: false })).toBe(
      true,
    );
    expect(needsUpgrade(chooseService(inbox, 'smtp', services, providers.testInbox), { canCreate: false })).toBe(true);
  });

  it('keeps the stored password only for the host, port and username it was saved for (R27)', () => {
    const account = buildSmtpAccount({ id: 7 });
    const values = initialValues(account, { ...context, isFirstAccount: false });
    expect(isStoredPasswordUsable(account, values)).toBe(true);
    expect(isStoredPasswordUsable(account, { ...values, host: ' SMTP.example.com ' })).toBe(true);
    expect(isStoredPasswordUsable(account, { ...values, encryption: 'ssl' })).toBe(true);
    expect(isStoredPasswordUsable(account, { ...values, host: 'smtp.elsewhere.test' })).toBe(false);
    expect(isStoredPasswordUsable(account, { ...values, port: 2525 })).toBe(false);
    expect(isStoredPasswordUsable(account, { ...values, username: 'someone-else' })).toBe(false);
    expect(isStoredPasswordUsable({ ...account, hasPassword: false }, values)).toBe(false);
  });

  it('uses Gmail’s server for a Google account', () => {
    const google = chooseProvider(blank, 'google', context);
    expect(google).toMatchObject({ driver: 'gmail', host: 'smtp.gmail.com', port: 465, encryption: 'ssl' });
  });

  it('changes the SMTP signature with any connection field, not with the name', () => {
    const values = chooseService({ ...blank, provider: 'smtp' }, 'smtp', services, providers.testInbox);
    const signature = smtpSignature(values);
    expect(smtpSignature({ ...values, name: 'Renamed', active: true })).toBe(signature);
    expect(smtpSignature({ ...values, password: 'x' })).not.toBe(signature);
    expect(smtpSignature({ ...values, port: 2587 })).not.toBe(signature);
    expect(smtpSignature({ ...values, fromAddress: 'me@example.com' })).not.toBe(signature);
  });

  it('names the stored password on Test only when the field is empty', () => {
    const values = initialValues(buildSmtpAccount({ id: 7 }), { ...context, isFirstAccount: false });
    expect(toTestRequest(values, 7)).toMatchObject({ password: '', accountId: 7, host: 'smtp.example.com' });
    expect(toTestRequest({ ...values, password: 'new' }, 7)).not.toHaveProperty('accountId');
  });

  it('sends only the chosen provider’s fields, and the daily limit only where it is asked', () => {
    const mailgun = toSaveRequest({ ...blank, name: 'News', domain: 'mg.example.com', apiKey: 'key-1' }, services);
    expect(mailgun).toEqual({
      name: 'News',
      provider: 'mailgun',
      active: false,
      domain: 'mg.example.com',
      apiKey: 'key-1',
      webhookKey: '',
      region: 'us',
      getList: false,
    });

    const inbox = chooseService({ ...blank, provider: 'smtp' }, TEST_INBOX_DRIVER, services, providers.testInbox);
    expect(toSaveRequest(inbox, services)).toMatchObject({
      driver: TEST_INBOX_DRIVER,
      port: 2525,
      mailPerDay: undefined,
    });
    const smtp = chooseService({ ...blank, provider: 'smtp' }, 'smtp', services, providers.testInbox);
    expect(toSaveRequest(smtp, services).mailPerDay).toBe(500);
  });
});
