import { Group, Paper, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { senderDomain, sendsAsSenderNameOnly, type TSendAccount } from '@sendwell/contracts';
import { IconAt, IconServer, IconUser } from '@tabler/icons-react';
import { memo } from 'react';
import { PROVIDER_LABELS } from '../accounts/accounts.form';
import { OPTIONS_WHILE_OPEN } from './dropdown';
import {
  fieldId,
  fromLine,
  offersSubdomain,
  SENDER_FIELDS,
  type TFieldErrors,
  type TSenderValues,
  type TSendFormValues,
} from './send-email.form';

type TProps = {
  /** The whole form's values may be given; only the sender's fields are read. */
  values: TSenderValues;
  errors: TFieldErrors;
  accounts: TSendAccount[];
  account: TSendAccount | undefined;
  onChange: (patch: Partial<TSendFormValues>) => void;
  onAccountChange: (accountId: string) => void;
};

const accountLabel = (account: TSendAccount) =>
  `${account.name} (${PROVIDER_LABELS[account.provider]}${account.domain ? ` · ${account.domain}` : ''})`;

/**
 * Who the email comes from (spec §5): SMTP and Gmail accounts send as a sender name at their
 * own address; Mailgun accounts need an alias at the account's domain, the name is optional.
 */
const SenderFieldsView = ({ values, errors, accounts, account, onChange, onAccountChange }: TProps) => {
  const isNameOnly = account ? sendsAsSenderNameOnly(account.provider) : false;
  const domain = account?.domain ?? '';

  return (
    <Stack gap="sm">
      <Select
        id={fieldId('account')}
        label="Account"
        comboboxProps={OPTIONS_WHILE_OPEN}
        required
        leftSection={<IconServer size={16} aria-hidden />}
        data={accounts.map((candidate) => ({ value: String(candidate.id), label: accountLabel(candidate) }))}
        value={values.account || null}
        onChange={(value) => value && onAccountChange(value)}
        allowDeselect={false}
        error={errors.account}
      />
      <TextInput
        id={fieldId('senderName')}
        label="Sender Name"
        required={isNameOnly}
        description={isNameOnly ? undefined : 'Optional: shown before the address.'}
        leftSection={<IconUser size={16} aria-hidden />}
        value={values.senderName}
        error={errors.senderName}
        onChange={(event) => onChange({ senderName: event.currentTarget.value })}
      />
      {!isNameOnly && (
        <>
          <Group align="flex-start" gap="xs" grow wrap="nowrap">
            <TextInput
              id={fieldId('alias')}
              label="Sender alias"
              required
              placeholder="news"
              value={values.alias}
              error={errors.alias}
              onChange={(event) => onChange({ alias: event.currentTarget.value })}
            />
            <TextInput
              label="Sender domain"
              value={senderDomain(domain, values.useSubdomain)}
              readOnly
              variant="filled"
              leftSection={<IconAt size={16} aria-hidden />}
            />
          </Group>
          {offersSubdomain(domain) && (
            <Switch
              label="Send from the subdomain"
              description={`Send as alias@${senderDomain(domain, true)} rather than alias@${senderDomain(domain, false)}.`}
              checked={values.useSubdomain}
              onChange={(event) => onChange({ useSubdomain: event.currentTarget.checked })}
            />
          )}
        </>
      )}
      {account && (
        <Paper bg="var(--mantine-color-default-hover)" px="sm" py={6} radius="sm">
          <Text size="sm" aria-live="polite" style={{ overflowWrap: 'anywhere' }}>
            <Text span c="dimmed" size="sm">
              Recipients will see:{' '}
            </Text>
            <Text span fw={500} size="sm" data-testid="sender-preview">
              {fromLine(values, account)}
            </Text>
          </Text>
        </Paper>
      )}
    </Stack>
  );
};

/**
 * Re-renders only when a sender field, its errors, the accounts or a callback changes, not on
 * every keystroke in the subject or the message.
 */
export const SenderFields = memo(
  SenderFieldsView,
  (before, after) =>
    before.errors === after.errors &&
    before.accounts === after.accounts &&
    before.account === after.account &&
    before.onChange === after.onChange &&
    before.onAccountChange === after.onAccountChange &&
    SENDER_FIELDS.every((field) => before.values[field] === after.values[field]),
);
