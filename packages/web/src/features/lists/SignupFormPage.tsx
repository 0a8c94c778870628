import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Checkbox,
  CopyButton,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  CONFIRM_URL_FIELD,
  MAX_CUSTOM_SIGNUP_FIELDS,
  SIGNUP_DEFAULTS,
  SIGNUP_FIELD_MODES,
  type TSignupFieldMode,
  type TSignupFields,
  type TSignupSettings,
  ZUpdateSignupSettings,
} from '@sendwell/contracts';
import { IconAlertCircle, IconArrowLeft, IconCheck, IconCopy, IconPlus, IconTrash } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { showSuccess } from '../../app/toasts';
import { FormStack } from '../../components/FormStack';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { Loading } from '../../components/QueryStatus';
import { RichText } from '../../components/RichText';
import { SettingsSection } from '../../components/SettingsSection';
import { listDetailPath, useListInfo, useSignupForm, useUpdateSignupForm } from './lists.queries';

const MODE_LABELS: Record<TSignupFieldMode, string> = {
  hidden: 'Not asked',
  optional: 'Optional',
  required: 'Required',
};
const modeOptions = SIGNUP_FIELD_MODES.map((mode) => ({ value: mode, label: MODE_LABELS[mode] }));

const Copy = ({ value, label }: { value: string; label: string }) => (
  <CopyButton value={value}>
    {({ copied, copy }) => (
      <Button
        variant="default"
        size="xs"
        onClick={copy}
        leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
      >
        {copied ? 'Copied' : label}
      </Button>
    )}
  </CopyButton>
);

type TDraft = {
  double_opt_in: boolean;
  form_fields: TSignupFields;
  consent_text: string;
  confirmation_subject: string;
  confirmation_html: string;
};

const draftOf = (settings: TSignupSettings): TDraft => ({
  double_opt_in: settings.double_opt_in,
  form_fields: settings.form_fields,
  consent_text: settings.consent_text,
  confirmation_subject: settings.confirmation_subject,
  // The editor shows the built-in email until the user writes their own.
  confirmation_html: settings.confirmation_html || SIGNUP_DEFAULTS.confirmationHtml,
});

const SignupFormEditor = ({ listId, settings }: { listId: number; settings: TSignupSettings }) => {
  const update = useUpdateSignupForm(listId);
  const [draft, setDraft] = useState<TDraft>(() => draftOf(settings));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = <K extends keyof TDraft>(key: K, value: TDraft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }));
    setErrors({});
  };
  const setFields = (fields: Partial<TSignupFields>) => set('form_fields', { ...draft.form_fields, ...fields });
  const setCustom = (index: number, change: Partial<TSignupFields['custom'][number]>) =>
    setFields({
      custom: draft.form_fields.custom.map((field, position) => (position === index ? { ...field, ...change } : field)),
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = {
      ...draft,
      // Unchanged from the built-in email: keep following it.
      confirmation_html: draft.confirmation_html === SIGNUP_DEFAULTS.confirmationHtml ? '' : draft.confirmation_html,
    };
    const parsed = ZUpdateSignupSettings.safeParse(request);
    if (!parsed.success) {
      // Nested fields by their whole path (`form_fields.custom.0.key`), as the server names them.
      const next: Record<string, string> = {};
      for (const issue of parsed.error.issues) next[issue.path.join('.')] ??= issue.message;
      setErrors(next);
      return;
    }
    update.mutate(request, {
      onSuccess: ({ message }) => showSuccess(message),
      onError: (error) => {
        if (error instanceof ApiError && error.status === 422) setErrors(fieldErrors(error));
        else showError(error);
      },
    });
  };
  const fieldError = (path: string) =>
    Object.entries(errors).find(([key]) => key === path || key.startsWith(`${path}.`))?.[1];

  return (
    <FormStack onSubmit={submit} gap="lg" aria-label="Signup form settings">
      {Object.keys(errors).length > 0 && (
        <Alert color="red" icon={<IconAlertCircle size={18} aria-hidden />} role="alert">
          Please correct the fields marked below.
        </Alert>
      )}
      <SettingsSection
        title="Share the form"
        description="Link people to the hosted page, or paste the form into any website: it is plain HTML and works without scripts. Save your changes first; the snippet follows them."
      >
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <TextInput label="Hosted page" value={settings.form_url} readOnly style={{ flex: 1, minWidth: 0 }} />
          <Copy value={settings.form_url} label="Copy" />
        </Group>
        <Anchor href={settings.form_url} target="_blank" rel="noreferrer" size="sm">
          Open the hosted page
        </Anchor>
        <Textarea
          label="Embeddable form (HTML)"
          value={settings.embed_html}
          readOnly
          autosize
          minRows={6}
          maxRows={16}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
        />
        <Group>
          <Copy value={settings.embed_html} label="Copy the HTML" />
        </Group>
      </SettingsSection>

      <SettingsSection
        title="Double opt-in"
        description="A person who signs up gets an email with a link; until they open it they stay unconfirmed and receive nothing else."
      >
        <Switch
          label="Ask new subscribers to confirm by email"
          checked={draft.double_opt_in}
          onChange={(event) => set('double_opt_in', event.currentTarget.checked)}
        />
      </SettingsSection>

      <SettingsSection
        title="Fields"
        description="The email address is always asked. Custom fields are saved on the member and can be used in emails as {{key}}."
      >
        <Group grow align="flex-start">
          <NativeSelect
            label="First name"
            data={modeOptions}
            value={draft.form_fields.first_name}
            onChange={(event) => setFields({ first_name: event.currentTarget.value as TSignupFieldMode })}
          />
          <NativeSelect
            label="Last name"
            data={modeOptions}
            value={draft.form_fields.last_name}
            onChange={(event) => setFields({ last_name: event.currentTarget.value as TSignupFieldMode })}
          />
        </Group>
        {draft.form_fields.custom.map((field, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a row is its position; keys are edited in place.
          <Paper key={index} withBorder p="sm" radius="sm">
            <Stack gap="xs">
              <Group grow align="flex-start">
                <TextInput
                  label={`Field ${index + 1} label`}
                  value={field.label}
                  required
                  error={fieldError(`form_fields.custom.${index}.label`)}
                  onChange={(event) => setCustom(index, { label: event.currentTarget.value })}
                />
                <TextInput
                  label={`Field ${index + 1} key`}
                  value={field.key}
                  required
                  error={fieldError(`form_fields.custom.${index}.key`)}
                  onChange={(event) => setCustom(index, { key: event.currentTarget.value })}
                />
              </Group>
              <Group justify="space-between">
                <Checkbox
                  label="Required"
                  checked={field.required}
                  onChange={(event) => setCustom(index, { required: event.currentTarget.checked })}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove field ${index + 1}`}
                  onClick={() =>
                    setFields({ custom: draft.form_fields.custom.filter((_, position) => position !== index) })
                  }
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
            </Stack>
          </Paper>
        ))}
        {fieldError('form_fields.custom') && (
          <Text c="red" size="sm" role="alert">
            {fieldError('form_fields.custom')}
          </Text>
        )}
        <Group>
          <Button
            variant="default"
            leftSection={<IconPlus size={16} aria-hidden />}
            disabled={draft.form_fields.custom.length >= MAX_CUSTOM_SIGNUP_FIELDS}
            onClick={() =>
              setFields({ custom: [...draft.form_fields.custom, { key: '', label: '', required: false }] })
            }
          >
            Add a field
          </Button>
        </Group>
      </SettingsSection>

      <SettingsSection
        title="Consent"
        description="Shown above the Subscribe button. Each member's consent record keeps these words as they read when the person signed up."
      >
        <Textarea
          label="What subscribers agree to"
          placeholder="I agree to receive the monthly newsletter. I can unsubscribe at any time."
          autosize
          minRows={2}
          value={draft.consent_text}
          error={fieldError('consent_text')}
          onChange={(event) => set('consent_text', event.currentTarget.value)}
        />
      </SettingsSection>

      <SettingsSection
        title="Confirmation email"
        description={`Sent from the list's address through its sending account. It must hold the confirmation link, {{${CONFIRM_URL_FIELD}}}; {{list_name}} and the person's fields can be used too.`}
      >
        <TextInput
          label="Subject"
          placeholder={SIGNUP_DEFAULTS.confirmationSubject}
          value={draft.confirmation_subject}
          error={fieldError('confirmation_subject')}
          onChange={(event) => set('confirmation_subject', event.currentTarget.value)}
        />
        <RichText
          label="Message"
          value={draft.confirmation_html}
          error={fieldError('confirmation_html')}
          onChange={(html) => set('confirmation_html', html)}
        />
        <Group>
          <Button variant="subtle" size="xs" onClick={() => set('confirmation_html', SIGNUP_DEFAULTS.confirmationHtml)}>
            Use the built-in message
          </Button>
        </Group>
      </SettingsSection>

      <Group justify="flex-end">
        <Button type="submit" loading={update.isPending}>
          Save the signup form
        </Button>
      </Group>
    </FormStack>
  );
};

/** A list's signup form: its fields, double opt-in, consent words, confirmation email, and where to share it. */
export const SignupFormPage = () => {
  const { listId } = useParams();
  const id = Number(listId);
  const list = useListInfo(id);
  const settings = useSignupForm(id);
  const back = list.data ? (
    <Anchor component={Link} to={listDetailPath(list.data)} size="sm" mb="xs" display="inline-block">
      <Group gap={4} component="span" wrap="nowrap">
        <IconArrowLeft size={14} aria-hidden />
        Back to {list.data.name}
      </Group>
    </Anchor>
  ) : null;
  if (list.isPending || settings.isPending) return <Loading label="Loading the signup form" py="xl" />;
  if (list.isError || settings.isError) {
    if (list.error instanceof ApiError && list.error.status === 404) {
      return (
        <Alert color="red" icon={<IconAlertCircle size={18} aria-hidden />} role="alert">
          This mailing list does not exist.
        </Alert>
      );
    }
    return <LoadFailedAlert title="The signup form could not be loaded" onRetry={() => void settings.refetch()} />;
  }
  return (
    <>
      {back}
      <PageHeader title="Signup form" description={`${list.data.name} · ${list.data.address}`} />
      <SignupFormEditor key={id} listId={id} settings={settings.data} />
    </>
  );
};
