import { Button, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import {
  OPERATOR_DAILY_CAP_MAX,
  type TDailyCapChange,
  type TOperatorAccount,
  type TOperatorUser,
  ZDailyCapChange,
} from '@sendwell/contracts';
import { useState } from 'react';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { ActionsHeader } from '../../components/ActionsHeader';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { Loading } from '../../components/QueryStatus';
import { useSetDailyCap, useUserAccounts } from './operator.queries';

const perDay = (count: number) => `${count.toLocaleString('en-US')} a day`;

/** What caps an account, in words: the operator's cap, the user's own setting, or none. */
const capText = (account: TOperatorAccount) => {
  if (account.daily_cap === null) return 'Not capped';
  return account.operator_mail_per_day === null
    ? `${perDay(account.daily_cap)} (the user's setting)`
    : `${perDay(account.daily_cap)} (set by an operator; the user's: ${account.mail_per_day.toLocaleString('en-US')})`;
};

/**
 * An SMTP or Gmail account's daily cap: a number past the form's 1,000 (a server of the
 * user's own that sends more), or back to the user's own setting. The reason goes in the
 * audit log.
 */
const DailyCapForm = ({ account, onDone }: { account: TOperatorAccount; onDone: () => void }) => {
  const change = useSetDailyCap(account.id);
  const save = (body: TDailyCapChange, fail: (error: unknown) => void) =>
    change.mutate(body, {
      onSuccess: ({ message }) => {
        showSuccess(message, 'Done');
        onDone();
      },
      onError: fail,
    });
  const form = useZodForm(ZDailyCapChange, {
    initialValues: { dailyCap: account.operator_mail_per_day ?? account.daily_cap, reason: '' },
    onSubmit: (body, { fail }) => save(body, fail),
  });
  // Back to the user's own setting: only the reason needs saying.
  const giveBack = () => {
    const parsed = ZDailyCapChange.safeParse({ dailyCap: null, reason: form.values.reason });
    if (!parsed.success) {
      form.setErrors({ reason: parsed.error.issues[0]?.message ?? 'Say why.' });
      return;
    }
    save(parsed.data, form.fail);
  };
  return (
    <FormStack onSubmit={form.onSubmit} error={form.formError} gap="sm">
      <NumberInput
        label={`Emails a day for ${account.name}`}
        description={`From 1 to ${OPERATOR_DAILY_CAP_MAX.toLocaleString('en-US')}; applies from the account's next claim, sends already running included.`}
        inputWrapperOrder={['label', 'input', 'description', 'error']}
        min={1}
        max={OPERATOR_DAILY_CAP_MAX}
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=","
        required
        value={(form.values.dailyCap as number | null) ?? ''}
        error={form.errors.dailyCap}
        onChange={(value) => form.setValue('dailyCap', value === '' ? null : Number(value))}
      />
      <TextInput label="Reason" required description="Kept in the audit log." {...form.inputProps('reason')} />
      <DialogActions onCancel={onDone}>
        {account.operator_mail_per_day !== null && (
          <Button
            variant="default"
            loading={change.isPending && change.variables?.dailyCap === null}
            onClick={giveBack}
          >
            Use the user's setting
          </Button>
        )}
        <Button type="submit" loading={change.isPending && change.variables?.dailyCap !== null}>
          Set daily cap
        </Button>
      </DialogActions>
    </FormStack>
  );
};

/** A user's sending accounts with what caps each a day, and the operator's cap to change. */
export const AccountsPanel = ({ user }: { user: TOperatorUser }) => {
  const accounts = useUserAccounts(user.id);
  const [editing, setEditing] = useState<number | null>(null);
  if (accounts.isPending) return <Loading label="Loading the accounts" py="md" />;
  if (accounts.isError) return <Text>The accounts could not be loaded.</Text>;
  if (accounts.data.length === 0) return <Text>{user.email} has no sending account.</Text>;
  const account = accounts.data.find((item) => item.id === editing);
  if (account) return <DailyCapForm account={account} onDone={() => setEditing(null)} />;
  return (
    <Stack gap="sm">
      <Text size="sm">
        SMTP and Gmail accounts send at most their daily cap in any 24 hours. The user's own form allows up to 1,000 a
        day; a cap set here replaces it.
      </Text>
      <Table.ScrollContainer minWidth={480}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Account</Table.Th>
              <Table.Th>Daily cap</Table.Th>
              <Table.Th ta="right">Sent, last 24 hours</Table.Th>
              <ActionsHeader />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {accounts.data.map((item) => (
              <Table.Tr key={item.id}>
                <Table.Td>
                  {item.name}
                  <Text size="xs" c="dimmed">
                    {item.provider === 'mailgun' ? 'Mailgun' : (item.host ?? item.driver ?? item.provider)}
                  </Text>
                </Table.Td>
                <Table.Td>{capText(item)}</Table.Td>
                <Table.Td ta="right">{item.capped ? item.sent_today.toLocaleString('en-US') : '—'}</Table.Td>
                <Table.Td>
                  {item.capped && (
                    <Button
                      size="compact-xs"
                      variant="default"
                      // The visible words first (WCAG 2.5.3, label in name), then whose cap.
                      aria-label={`Change cap of ${item.name}`}
                      onClick={() => setEditing(item.id)}
                    >
                      Change cap
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
};
