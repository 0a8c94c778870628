import {
  findSmtpService,
  type TAccountForm,
  type TAccountProvider,
  type TAccountProviders,
  TEST_INBOX_DRIVER,
  type TSendingAccount,
  type TSendTestSmtpRequest,
} from '@sendwell/contracts';

export type TSmtpServiceOption = TAccountProviders['smtpServices'][number];
export type TTestInbox = NonNullable<TAccountProviders['testInbox']>;
type TEncryption = 'tls' | 'ssl';

/** The form as typed: every field a string or a flag, whichever provider is chosen. */
export type TAccountFormValues = {
  name: string;
  provider: TAccountProvider;
  active: boolean;
  domain: string;
  apiKey: string;
  webhookKey: string;
  region: 'us' | 'eu';
  getList: boolean;
  driver: string;
  username: string;
  password: string;
  host: string;
  port: string | number;
  encryption: TEncryption;
  fromAddress: string;
  /** The DKIM selector the SMTP server signs with (optional; the pre-send check reads its key). */
  dkimSelector: string;
  mailPerDay: string | number;
};

export const PROVIDER_LABELS: Record<TAccountProvider, string> = {
  mailgun: 'Mailgun',
  smtp: 'SMTP',
  google: 'Google',
};

export const TEST_INBOX_LABEL = 'Sendwell test inbox';
/** The name a new test-inbox account gets, so a newcomer's first Save succeeds as it is (issue 29 item 1). */
export const TEST_INBOX_ACCOUNT_NAME = 'Test inbox';

/** Gmail with an app password is SMTP to Google's server; the server uses these settings whatever the form says. */
const GMAIL_SERVICE = findSmtpService('gmail')!;

export const isTestInboxDriver = (driver: string | null | undefined) => driver === TEST_INBOX_DRIVER;

/**
 * The test inbox as a service of the SMTP select. It takes the server's default daily limit, so
 * the form does not ask for one (max equals default).
 */
const testInboxService = (inbox: TTestInbox): TSmtpServiceOption => ({
  driver: TEST_INBOX_DRIVER,
  label: TEST_INBOX_LABEL,
  host: inbox.host,
  port: inbox.port,
  // The server connects to its own inbox with STARTTLS offered; what is sent here is ignored.
  encryption: 'tls',
  maxPerDay: 0,
  defaultPerDay: 0,
  needsFromAddress: false,
});

/** The SMTP select's choices: the test inbox first (when the server runs one), then the server's services. */
export const smtpServiceOptions = (providers: TAccountProviders): TSmtpServiceOption[] => [
  ...(providers.testInbox ? [testInboxService(providers.testInbox)] : []),
  ...providers.smtpServices,
];

/** The service behind an SMTP or Google account; Google is always Gmail. */
export const serviceOf = (
  values: Pick<TAccountFormValues, 'provider' | 'driver'>,
  services: readonly TSmtpServiceOption[],
): TSmtpServiceOption | undefined =>
  values.provider === 'google' ? GMAIL_SERVICE : services.find((service) => service.driver === values.driver);

/** Asked only where the service allows more a day than its default (spec §5). */
export const asksMailPerDay = (service: TSmtpServiceOption | undefined): boolean =>
  service !== undefined && service.maxPerDay > service.defaultPerDay;

const EMPTY: TAccountFormValues = {
  name: '',
  provider: 'mailgun',
  active: false,
  domain: '',
  apiKey: '',
  webhookKey: '',
  region: 'us',
  getList: false,
  driver: '',
  username: '',
  password: '',
  host: '',
  port: '',
  encryption: 'tls',
  fromAddress: '',
  dkimSelector: '',
  mailPerDay: '',
};

/**
 * Fills the connection fields from a chosen service. The test inbox brings the server's own
 * login; leaving it drops that login, which belongs to no other server.
 */
export const chooseService = (
  values: TAccountFormValues,
  driver: string,
  services: readonly TSmtpServiceOption[],
  testInbox: TTestInbox | null,
): TAccountFormValues => {
  const service = services.find((candidate) => candidate.driver === driver);
  const wasTestInbox = isTestInboxDriver(values.driver);
  const next: TAccountFormValues = {
    ...values,
    driver,
    host: service?.host ?? '',
    port: service?.port ?? '',
    encryption: service?.encryption ?? 'tls',
    mailPerDay: service && asksMailPerDay(service) ? service.defaultPerDay : '',
  };
  if (isTestInboxDriver(driver) && testInbox) {
    // An empty name becomes the test inbox's; a name the user typed stays.
    const name = values.name.trim() ? values.name : TEST_INBOX_ACCOUNT_NAME;
    return { ...next, name, username: testInbox.username, password: testInbox.password };
  }
  if (!wasTestInbox) return next;
  // Leaving the test inbox takes its login, and its name when the user kept the one it gave.
  const name = values.name === TEST_INBOX_ACCOUNT_NAME ? '' : values.name;
  return { ...next, name, username: '', password: '' };
};

type TProviderContext = {
  services: readonly TSmtpServiceOption[];
  testInbox: TTestInbox | null;
  /** A free plan may add only the test inbox, so choosing SMTP there goes straight to it. */
  canCreate: boolean;
};

export const chooseProvider = (
  values: TAccountFormValues,
  provider: TAccountProvider,
  { services, testInbox, canCreate }: TProviderContext,
): TAccountFormValues => {
  const next = { ...values, provider };
  if (provider === 'google') {
    const cleared = isTestInboxDriver(values.driver)
      ? { ...next, name: values.name === TEST_INBOX_ACCOUNT_NAME ? '' : values.name, username: '', password: '' }
      : next;
    return {
      ...cleared,
      driver: GMAIL_SERVICE.driver,
      host: GMAIL_SERVICE.host,
      port: GMAIL_SERVICE.port,
      encryption: GMAIL_SERVICE.encryption,
      mailPerDay: '',
    };
  }
  if (provider === 'smtp' && values.provider !== 'smtp') {
    const driver = !canCreate && testInbox ? TEST_INBOX_DRIVER : '';
    return chooseService(next, driver, services, testInbox);
  }
  return next;
};

type TInitialOptions = TProviderContext & {
  /** The empty state's shortcut opens the form on the test inbox. */
  preset?: 'test-inbox';
  /** The first account is primary whatever the switch says; the switch shows it. */
  isFirstAccount: boolean;
};

export const initialValues = (account: TSendingAccount | undefined, options: TInitialOptions): TAccountFormValues => {
  if (!account) {
    const base = { ...EMPTY, active: options.isFirstAccount };
    const startsOnTestInbox = options.preset === 'test-inbox' || !options.canCreate;
    if (startsOnTestInbox && options.testInbox) return chooseProvider(base, 'smtp', { ...options, canCreate: false });
    return base;
  }
  const values: TAccountFormValues = {
    ...EMPTY,
    name: account.name,
    provider: account.provider,
    active: account.active,
    domain: account.domain ?? '',
    region: account.region ?? 'us',
    getList: account.getList,
    driver: account.provider === 'google' ? GMAIL_SERVICE.driver : (account.driver ?? ''),
    username: account.username ?? account.gmail_accounts?.email ?? '',
    host: account.host ?? '',
    port: account.port ?? '',
    encryption: account.encryption ?? 'tls',
    fromAddress: account.fromAddress ?? '',
    dkimSelector: account.dkimSelector ?? '',
    mailPerDay: account.mailPerDay || '',
  };
  // The test inbox's login is the server's; show what it uses now.
  const { testInbox } = options;
  return isTestInboxDriver(account.driver) && testInbox
    ? {
        ...values,
        username: testInbox.username,
        password: testInbox.password,
        host: testInbox.host,
        port: testInbox.port,
      }
    : values;
};

/**
 * A free plan has only the test inbox: adding or saving anything else is refused before the
 * server is asked, as the server refuses it on every save (R23).
 */
export const needsUpgrade = (values: TAccountFormValues, { canCreate }: { canCreate: boolean }) =>
  !canCreate && !(values.provider === 'smtp' && isTestInboxDriver(values.driver));

/**
 * Whether an empty password field may mean the stored one: the server sends a stored
 * password only to the host, port and username it was saved for (R27); with any of them
 * changed, the password must be typed again. Google's host is the server's own.
 */
export const isStoredPasswordUsable = (account: TSendingAccount, values: TAccountFormValues) => {
  if (!account.hasPassword || account.provider !== values.provider || values.provider === 'mailgun') return false;
  const isSameUser = (account.username ?? '') === values.username.trim();
  if (values.provider === 'google') return isSameUser;
  return (
    isSameUser &&
    (account.host ?? '').toLowerCase() === values.host.trim().toLowerCase() &&
    String(account.port) === String(values.port).trim()
  );
};

/** An empty numeric field is 'not given'; anything else goes as a number and the schema judges it. */
const toNumber = (value: string | number): number | undefined => (value === '' ? undefined : Number(value));

/** What Test SMTP sends; without a password, `accountId` names the stored one. */
export const toTestRequest = (values: TAccountFormValues, storedPasswordOf?: number): TSendTestSmtpRequest => ({
  driver: values.driver,
  username: values.username,
  password: values.password,
  host: values.host,
  port: toNumber(values.port) ?? '',
  encryption: values.encryption,
  fromAddress: values.fromAddress,
  ...(values.password === '' && storedPasswordOf !== undefined ? { accountId: storedPasswordOf } : {}),
});

/**
 * Everything a Test SMTP result stands for. Save waits for a passed test with exactly these
 * values; changing any of them asks for a new test (spec §4).
 */
export const smtpSignature = (values: TAccountFormValues): string =>
  values.provider === 'mailgun'
    ? 'mailgun'
    : JSON.stringify([
        values.provider,
        values.driver,
        values.username.trim(),
        values.password,
        values.host.trim(),
        String(values.port),
        values.encryption,
        values.fromAddress.trim(),
      ]);

/** The save request for the chosen provider, without the other providers' fields. */
export const toSaveRequest = (values: TAccountFormValues, services: readonly TSmtpServiceOption[]): TAccountForm => {
  const common = { name: values.name, provider: values.provider, active: values.active };
  if (values.provider === 'mailgun') {
    return {
      ...common,
      domain: values.domain,
      apiKey: values.apiKey,
      webhookKey: values.webhookKey,
      region: values.region,
      getList: values.getList,
    };
  }
  const service = serviceOf(values, services);
  return {
    ...common,
    driver: values.driver,
    username: values.username,
    password: values.password || undefined,
    host: values.host,
    port: toNumber(values.port),
    encryption: values.encryption,
    fromAddress: values.fromAddress,
    ...(values.provider === 'smtp' ? { dkimSelector: values.dkimSelector } : {}),
    mailPerDay: asksMailPerDay(service) ? toNumber(values.mailPerDay) : undefined,
  };
};
