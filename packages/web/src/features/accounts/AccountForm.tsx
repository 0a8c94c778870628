import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  NativeSelect,
  NumberInput,
  Radio,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import {
  ACCOUNT_MESSAGES,
  accountsApi,
  MAIL_PER_DAY_MAX,
  routeUrl,
  type TAccountProvider,
  type TAccountProviders,
  type TSendingAccount,
  ZAccountForm,
  ZSendTestSmtpRequest,
} from '@sendwell/contracts';
import { IconAlertCircle, IconCircleCheck, IconInfoCircle, IconLock } from '@tabler/icons-react';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField, useAutofocus } from '../../app/forms';
import { showSuccess } from '../../app/toasts';
import { PasswordField } from '../../components/PasswordField';
import {
  asksMailPerDay,
  chooseProvider,
  chooseService,
  initialValues,
  isStoredPasswordUsable,
  isTestInboxDriver,
  needsUpgrade,
  PROVIDER_LABELS,
  serviceOf,
  smtpServiceOptions,
  smtpSignature,
  type TAccountFormValues,
  toSaveRequest,
  toTestRequest,
} from './accounts.form';
import { useSaveAccount, useSendTestSmtp } from './accounts.queries';
import { GmailHelpModal } from './GmailHelpModal';

/** Fields a Test SMTP checks; a problem elsewhere (the name) does not stop a test. */
const SMTP_FIELDS = ['driver', 'username', 'password', 'host', 'port', 'encryption', 'fromAddress'];

/** The form's fields that hold typed text. */
type TTextField = {
  [K in keyof TAccountFormValues]: string extends TAccountFormValues[K] ? K : never;
}[keyof TAccountFormValues];

const pickFields = (errors: Record<string, string>, fields: string[]): Record<string, string> =>
  Object.fromEntries(Object.entries(errors).filter(([field]) => fields.includes(field)));

const withoutFields = (errors: Record<string, string>, fields: string[]): Record<string, string> =>
  Object.fromEntries(Object.entries(errors).filter(([field]) => !fields.includes(field)));

/** The spec's free-plan notice (§6), with the way out. */
export const UpgradeAlert = () => (
  <Alert color="orange" icon={<IconLock size={18} />} data-testid="upgrade-alert">
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {ACCOUNT_MESSAGES.upgrade}
      </Text>
      <Text size="sm">
        Your plan lets you connect the Sendwell test inbox only.{' '}
        <Anchor component={Link} to="/settings/subscription" size="sm">
          Upgrade on the Subscription page
        </Anchor>
      </Text>
    </Stack>
  </Alert>
);

type TTestResult = { signature: string; isPassed: boolean; message: string };
type TServerNotice = { kind: 'upgrade' } | { kind: 'refused'; message: string };

type TProps = {
  /** The account being edited; none to add one. */
  account?: TSendingAccount;
  providers: TAccountProviders;
  /** Opens the add form on the test inbox. */
  preset?: 'test-inbox';
  isFirstAccount: boolean;
  onSaved: (account: TSendingAccount) => void;
  onCancel: () => void;
};

/**
 * Adds or edits a sending account. SMTP and Gmail accounts are saved only after a passed Test
 * SMTP with the values on screen (spec §4); the server checks every account with its provider
 * again before it stores anything, which takes a few seconds.
 */
export const AccountForm = ({ account, providers, preset, isFirstAccount, onSaved, onCancel }: TProps) => {
  const services = smtpServiceOptions(providers);
  const context = { services, testInbox: providers.testInbox, canCreate: providers.canCreate };
  const isNew = account === undefined;

  const [values, setValues] = useState<TAccountFormValues>(() =>
    initialValues(account, { ...context, preset, isFirstAccount }),
  );
  // What the stored account was checked with: editing only its name or flag needs no new test.
  const [storedSignature] = useState(() => (isNew ? null : smtpSignature(values)));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [testResult, setTestResult] = useState<TTestResult | null>(null);
  const [serverNotice, setServerNotice] = useState<TServerNotice | null>(null);
  const [isHelpOpen, setIsHelpOpen] = useState(false);
  const save = useSaveAccount(account?.id);
  const sendTest = useSendTestSmtp();
  const nameRef = useAutofocus<HTMLInputElement>();
  const providerLabelId = useId();

  const service = serviceOf(values, services);
  const isSmtpLike = values.provider !== 'mailgun';
  const isTestInbox = values.provider === 'smtp' && isTestInboxDriver(values.driver);
  const isBlocked = needsUpgrade(values, { canCreate: providers.canCreate });
  const signature = smtpSignature(values);
  const isTested = testResult?.isPassed === true && testResult.signature === signature;
  const isStoredUnchanged = storedSignature !== null && signature === storedSignature;
  const canSave = !isBlocked && (!isSmtpLike || isTested || isStoredUnchanged);
  const isTestShown = isSmtpLike && !isBlocked && !isTested;
  // On edit, an empty password means the stored one: this provider's, and only for the
  // host, port and username it was saved for (R27); otherwise it must be typed again.
  const hasStoredPassword = account?.hasPassword === true && account.provider === values.provider && !isTestInbox;
  const storedPasswordOf = hasStoredPassword && isStoredPasswordUsable(account, values) ? account.id : undefined;
  const missingPasswordMessage = hasStoredPassword
    ? ACCOUNT_MESSAGES.passwordForChangedServer
    : ACCOUNT_MESSAGES.passwordRequired;
  const storedApiKey = account?.provider === 'mailgun' ? account.apiKey : null;
  const storedWebhookKey = account?.provider === 'mailgun' ? account.webhookKey : null;

  const update = (patch: Partial<TAccountFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => withoutFields(current, Object.keys(patch)));
  };
  /** A text input's value, message and change (which clears the message) for one field. */
  const textProps = (field: TTextField) => ({
    value: values[field],
    error: errors[field],
    onChange: (event: { currentTarget: { value: string } }) => update({ [field]: event.currentTarget.value }),
  });

  const changeProvider = (provider: TAccountProvider) => {
    setValues((current) => chooseProvider(current, provider, context));
    setErrors({});
  };

  const changeService = (driver: string) => {
    setValues((current) => chooseService(current, driver, services, providers.testInbox));
    setErrors((current) => withoutFields(current, SMTP_FIELDS));
  };

  const runTest = () => {
    if (isBlocked || sendTest.isPending) return;
    const request = toTestRequest(values, storedPasswordOf);
    const parsedRequest = ZSendTestSmtpRequest.safeParse(request);
    const parsedForm = ZAccountForm.safeParse(toSaveRequest(values, services));
    const issues = pickFields(
      {
        ...(parsedRequest.success ? {} : firstIssueByField(parsedRequest.error.issues)),
        ...(parsedForm.success ? {} : firstIssueByField(parsedForm.error.issues)),
      },
      SMTP_FIELDS,
    );
    setErrors((current) => ({ ...withoutFields(current, SMTP_FIELDS), ...issues }));
    if (!parsedRequest.success || Object.keys(issues).length > 0) {
      setTestResult(null);
      return;
    }
    // The test inbox logs in with the server's own password, whatever the form holds.
    if (!parsedRequest.data.password && parsedRequest.data.accountId === undefined && !isTestInbox) {
      setTestResult({ signature, isPassed: false, message: missingPasswordMessage });
      return;
    }
    setTestResult(null);
    // The result belongs to the values sent: typing while it runs asks for another test.
    const testedSignature = signature;
    sendTest.mutate(parsedRequest.data, {
      onSuccess: ({ message }) => setTestResult({ signature: testedSignature, isPassed: true, message }),
      onError: (error) => {
        if (error instanceof ApiError && (error.status === 422 || error.status === 429 || error.status < 300)) {
          setErrors((current) => ({ ...current, ...pickFields(fieldErrors(error), SMTP_FIELDS) }));
          setTestResult({ signature: testedSignature, isPassed: false, message: error.message });
        } else {
          showError(error);
        }
      },
    });
  };

  const failSave = (error: Error) => {
    if (error instanceof ApiError) {
      if (error.status === 403 && error.body.code === 'UPGRADE_REQUIRED') {
        setServerNotice({ kind: 'upgrade' });
        return;
      }
      if (error.status === 422) {
        const fields = fieldErrors(error);
        setErrors(fields);
        // The provider refused the credentials (ACCOUNT_CHECK_FAILED), or a rule with no field.
        if (Object.keys(fields).length === 0) setServerNotice({ kind: 'refused', message: error.message });
        return;
      }
      if (error.status === 429) {
        setServerNotice({ kind: 'refused', message: error.message });
        return;
      }
    }
    showError(error);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (isBlocked || save.isPending) return;
    // Before a passed test the Test button submits: Enter in a field tests, the next step.
    if (!canSave) {
      runTest();
      return;
    }
    setServerNotice(null);
    const parsed = ZAccountForm.safeParse(toSaveRequest(values, services));
    const issues = parsed.success ? {} : firstIssueByField(parsed.error.issues);
    if (values.provider === 'mailgun' && !values.apiKey.trim() && !storedApiKey) {
      issues.apiKey = ACCOUNT_MESSAGES.apiKeyRequired;
    }
    if (isSmtpLike && !isTestInbox && !values.password && storedPasswordOf === undefined) {
      issues.password = missingPasswordMessage;
    }
    setErrors(issues);
    if (!parsed.success || Object.keys(issues).length > 0) return;
    save.mutate(parsed.data, {
      onSuccess: ({ message, data }) => {
        showSuccess(message, null);
        onSaved(data);
      },
      onError: failSave,
    });
  };

  const providerChoices = providers.providers.includes(values.provider)
    ? providers.providers
    : [...providers.providers, values.provider];
  const isFirstPrimary = isNew && isFirstAccount;

  return (
    <form
      onSubmit={submit}
      noValidate
      data-testid="account-form"
      aria-label={isNew ? 'Add a sending account' : `Edit ${account.name}`}
    >
      <Stack>
        <TextInput
          ref={nameRef}
          label="Account Name"
          description="Your name for this account, shown when you choose where to send from."
          inputWrapperOrder={['label', 'input', 'description', 'error']}
          {...textProps('name')}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id={providerLabelId}>
            Provider
          </Text>
          <SegmentedControl
            aria-labelledby={providerLabelId}
            data={providerChoices.map((provider) => ({ value: provider, label: PROVIDER_LABELS[provider] }))}
            value={values.provider}
            onChange={(provider) => changeProvider(provider as TAccountProvider)}
            w={{ base: '100%', xs: 'fit-content' }}
          />
        </Stack>
        <Switch
          label="Primary Account"
          description={
            isFirstPrimary
              ? 'Your first account is the primary one.'
              : account?.active
                ? 'To change this, make another account primary.'
                : 'Sending uses the primary account unless you choose another.'
          }
          checked={values.active || isFirstPrimary}
          disabled={isFirstPrimary || account?.active}
          onChange={(event) => update({ active: event.currentTarget.checked })}
        />

        {values.provider === 'smtp' && (
          <NativeSelect
            label="SMTP Service"
            data={[
              { value: '', label: 'Choose a service', disabled: true },
              ...services.map((option) => ({ value: option.driver, label: option.label })),
            ]}
            value={values.driver}
            error={errors.driver}
            onChange={(event) => changeService(event.currentTarget.value)}
          />
        )}

        {isBlocked ? (
          <UpgradeAlert />
        ) : values.provider === 'mailgun' ? (
          <>
            <TextInput
              label="Domain"
              description="Your sending domain as Mailgun lists it, for example mg.example.com."
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              {...textProps('domain')}
            />
            <PasswordField
              label="API key"
              autoComplete="off"
              placeholder={storedApiKey ?? undefined}
              description={storedApiKey ? 'Leave empty to keep the current key.' : undefined}
              {...textProps('apiKey')}
            />
            <PasswordField
              label="Webhook signing key"
              autoComplete="off"
              placeholder={storedWebhookKey ?? undefined}
              description={
                storedWebhookKey
                  ? 'Leave empty to keep the current key.'
                  : "Optional: from Mailgun's Webhooks page, so Sendwell can trust delivery, open and bounce events."
              }
              value={values.webhookKey}
              onChange={(event) => update({ webhookKey: event.currentTarget.value })}
            />
            <Radio.Group
              label="Region"
              value={values.region}
              error={errors.region}
              onChange={(region) => update({ region: region === 'eu' ? 'eu' : 'us' })}
            >
              <Group gap="lg" mt={6}>
                <Radio value="us" label="US" />
                <Radio value="eu" label="EU" />
              </Group>
            </Radio.Group>
            <Checkbox
              label="Import this domain's mailing lists"
              checked={values.getList}
              onChange={(event) => update({ getList: event.currentTarget.checked })}
            />
          </>
        ) : values.provider === 'google' ? (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Gmail address" type="email" autoComplete="off" {...textProps('username')} />
              <PasswordField
                label="App password"
                autoComplete="off"
                placeholder={storedPasswordOf ? 'Leave empty to keep the stored one' : undefined}
                {...textProps('password')}
              />
            </SimpleGrid>
            <Group gap="lg">
              <Anchor component="button" type="button" size="sm" onClick={() => setIsHelpOpen(true)}>
                How do I get an app password?
              </Anchor>
              <Anchor href={routeUrl(accountsApi.googleLogin)} size="sm">
                Or sign in with Google instead
              </Anchor>
            </Group>
            <GmailHelpModal opened={isHelpOpen} onClose={() => setIsHelpOpen(false)} />
          </>
        ) : (
          values.driver !== '' && (
            <>
              {isTestInbox && (
                <Alert color="blue" icon={<IconInfoCircle size={18} />}>
                  Mail sent through the test inbox stays on this server: read it on the{' '}
                  <Anchor component={Link} to="/test-inbox" size="sm">
                    Test Inbox
                  </Anchor>{' '}
                  page. Its connection settings are the server&apos;s own.
                </Alert>
              )}
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label="Username" autoComplete="off" disabled={isTestInbox} {...textProps('username')} />
                <PasswordField
                  label="Password"
                  autoComplete="off"
                  disabled={isTestInbox}
                  placeholder={storedPasswordOf ? 'Leave empty to keep the stored one' : undefined}
                  {...textProps('password')}
                />
                <TextInput
                  label="Host"
                  description={isTestInbox ? undefined : 'Your provider’s SMTP server, for example smtp.example.com.'}
                  inputWrapperOrder={['label', 'input', 'description', 'error']}
                  disabled={isTestInbox}
                  {...textProps('host')}
                />
                <Group grow align="flex-start" gap="sm">
                  <NumberInput
                    label="Port"
                    allowDecimal={false}
                    allowNegative={false}
                    hideControls
                    min={1}
                    max={65535}
                    disabled={isTestInbox}
                    value={values.port}
                    error={errors.port}
                    onChange={(port) => update({ port })}
                  />
                  <NativeSelect
                    label="Encryption"
                    data={[
                      { value: 'tls', label: 'TLS' },
                      { value: 'ssl', label: 'SSL' },
                    ]}
                    disabled={isTestInbox}
                    value={values.encryption}
                    error={errors.encryption}
                    onChange={(event) => update({ encryption: event.currentTarget.value === 'ssl' ? 'ssl' : 'tls' })}
                  />
                </Group>
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label="From Address"
                  type="email"
                  description={
                    service?.needsFromAddress
                      ? `Required by ${service.label}: a sender address you verified there.`
                      : 'Optional: the address messages come from.'
                  }
                  inputWrapperOrder={['label', 'input', 'description', 'error']}
                  {...textProps('fromAddress')}
                />
                {values.provider === 'smtp' && !isTestInbox && (
                  <TextInput
                    label="DKIM selector"
                    description="Optional: the part before ._domainkey in your provider's DKIM record. The check before each send looks its key up."
                    inputWrapperOrder={['label', 'input', 'description', 'error']}
                    {...textProps('dkimSelector')}
                  />
                )}
                {service && asksMailPerDay(service) && (
                  <NumberInput
                    label="Maximum Email per Day"
                    description={
                      account?.operatorMailPerDay
                        ? `The operator set this account's limit to ${account.operatorMailPerDay.toLocaleString('en-US')} a day; it applies instead of this.`
                        : `${service.label} allows up to ${service.maxPerDay} a day.`
                    }
                    inputWrapperOrder={['label', 'input', 'description', 'error']}
                    allowDecimal={false}
                    allowNegative={false}
                    min={1}
                    max={Math.min(service.maxPerDay, MAIL_PER_DAY_MAX)}
                    value={values.mailPerDay}
                    error={errors.mailPerDay}
                    onChange={(mailPerDay) => update({ mailPerDay })}
                  />
                )}
              </SimpleGrid>
            </>
          )
        )}

        {testResult && testResult.signature === signature && (
          <Alert
            color={testResult.isPassed ? 'green' : 'red'}
            icon={testResult.isPassed ? <IconCircleCheck size={18} /> : <IconAlertCircle size={18} />}
            data-testid="smtp-test-result"
          >
            {testResult.message}
          </Alert>
        )}
        {serverNotice?.kind === 'upgrade' && !isBlocked && <UpgradeAlert />}
        {serverNotice?.kind === 'refused' && (
          <Alert color="red" icon={<IconAlertCircle size={18} />} data-testid="account-refused">
            {serverNotice.message}
          </Alert>
        )}

        <Group justify="space-between" align="center">
          <Text size="sm" c="dimmed" aria-live="polite">
            {save.isPending
              ? `Checking the account with ${isTestInbox ? 'the test inbox' : PROVIDER_LABELS[values.provider]}; this can take a few seconds…`
              : isTestShown && !canSave
                ? 'Test the connection before saving.'
                : ''}
          </Text>
          <Group gap="xs">
            <Button variant="default" onClick={onCancel} disabled={save.isPending}>
              Cancel
            </Button>
            {isTestShown && (
              <Button
                variant={canSave ? 'light' : 'filled'}
                loading={sendTest.isPending}
                disabled={save.isPending}
                // Until Save is possible, testing is what Enter in a field should do.
                type={canSave ? 'button' : 'submit'}
                onClick={canSave ? runTest : undefined}
                data-testid="smtp-test"
              >
                Test SMTP
              </Button>
            )}
            <Button
              type={canSave ? 'submit' : 'button'}
              disabled={!canSave}
              loading={save.isPending}
              data-testid="account-save"
            >
              Save
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
};
