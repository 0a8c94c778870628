import {
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { type TOperatorUser, usableCredit, ZCreditChange, ZUserDisable } from '@sendwell/contracts';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { AccountsPanel } from './AccountsPanel';
import {
  OPERATOR_USERS_URL,
  operatorKeys,
  useChangeCredits,
  useChangePlan,
  useDisableUser,
  usePlans,
} from './operator.queries';

const done = (message: string) => showSuccess(message, 'Done');

const CreditsForm = ({ user, onClose }: { user: TOperatorUser; onClose: () => void }) => {
  const change = useChangeCredits(user.id);
  const form = useZodForm(ZCreditChange, {
    initialValues: { action: 'grant', amount: 100, reason: '' },
    onSubmit: (body, { fail }) =>
      change.mutate(body, {
        onSuccess: ({ message, data }) => {
          done(`${message} ${user.email} now has ${usableCredit(data.credit).toLocaleString('en-US')} usable.`);
          onClose();
        },
        onError: fail,
      }),
  });
  return (
    <FormStack onSubmit={form.onSubmit} error={form.formError}>
      <Text size="sm">
        {user.email} has {usableCredit(user.credit).toLocaleString('en-US')} usable credits.
      </Text>
      <SegmentedControl
        aria-label="Grant or remove"
        value={form.values.action as string}
        onChange={(value) => form.setValue('action', value as 'grant' | 'remove')}
        data={[
          { label: 'Grant', value: 'grant' },
          { label: 'Remove', value: 'remove' },
        ]}
      />
      <NumberInput
        label="Credits"
        min={1}
        allowDecimal={false}
        value={form.values.amount as number}
        error={form.errors.amount}
        onChange={(value) => form.setValue('amount', Number(value))}
      />
      <TextInput
        label="Reason"
        required
        description="Kept in the audit log and the credit log."
        {...form.inputProps('reason')}
      />
      <DialogActions onCancel={onClose}>
        <Button type="submit" loading={change.isPending}>
          {form.values.action === 'grant' ? 'Grant credits' : 'Remove credits'}
        </Button>
      </DialogActions>
    </FormStack>
  );
};

const PlanForm = ({ user, onClose }: { user: TOperatorUser; onClose: () => void }) => {
  const plans = usePlans();
  const change = useChangePlan(user.id);
  const [planId, setPlanId] = useState(String(user.plan.id));
  return (
    <Stack>
      <NativeSelect
        label="Plan"
        value={planId}
        onChange={(event) => setPlanId(event.currentTarget.value)}
        data={(plans.data ?? [{ id: user.plan.id, name: user.plan.name }]).map((plan) => ({
          value: String(plan.id),
          label: plan.name,
        }))}
      />
      <DialogActions onCancel={onClose}>
        <Button
          loading={change.isPending}
          onClick={() =>
            change.mutate(Number(planId), {
              onSuccess: ({ message }) => {
                done(message);
                onClose();
              },
            })
          }
        >
          Change plan
        </Button>
      </DialogActions>
    </Stack>
  );
};

const DisableForm = ({ user, onClose }: { user: TOperatorUser; onClose: () => void }) => {
  const change = useDisableUser(user.id);
  const form = useZodForm(ZUserDisable, {
    initialValues: { disabled: !user.disabled, reason: '' },
    onSubmit: (body, { fail }) =>
      change.mutate(body, {
        onSuccess: ({ message }) => {
          done(message);
          onClose();
        },
        onError: fail,
      }),
  });
  return (
    <FormStack onSubmit={form.onSubmit} error={form.formError}>
      <Text size="sm">
        {user.disabled
          ? `${user.email} will be able to sign in again.`
          : `${user.email} will be signed out everywhere and cannot sign in until enabled again.`}
      </Text>
      <TextInput label="Reason" required {...form.inputProps('reason')} />
      <DialogActions onCancel={onClose}>
        <Button type="submit" color={user.disabled ? undefined : 'red.9'} loading={change.isPending}>
          {user.disabled ? 'Enable user' : 'Disable user'}
        </Button>
      </DialogActions>
    </FormStack>
  );
};

type TAction = { kind: 'credits' | 'plan' | 'accounts' | 'disable'; user: TOperatorUser } | null;

export const UsersTab = () => {
  const formatDateTime = useFormatDateTime();
  const [action, setAction] = useState<TAction>(null);
  const close = () => setAction(null);
  const columns: TDataTableColumn<TOperatorUser>[] = [
    { key: 'email', title: 'Email', sortable: true },
    { key: 'name', title: 'Name', sortable: true },
    { key: 'plan', title: 'Plan', render: (user) => user.plan.name },
    {
      key: 'credit',
      title: 'Usable credits',
      align: 'right',
      render: (user) => usableCredit(user.credit).toLocaleString('en-US'),
    },
    {
      key: 'status',
      title: 'Status',
      render: (user) => (
        <Group gap={4}>
          {user.disabled ? (
            <Badge color="red" variant="light">
              Disabled
            </Badge>
          ) : (
            <Badge color="green" variant="light">
              Active
            </Badge>
          )}
          {user.role === 'operator' && <Badge variant="light">Operator</Badge>}
        </Group>
      ),
    },
    { key: 'created_at', title: 'Joined', sortable: true, render: (user) => formatDateTime(user.created_at) },
    {
      key: 'actions',
      title: 'Actions',
      render: (user) => (
        <Group gap={4} wrap="nowrap">
          <Button size="compact-xs" variant="default" onClick={() => setAction({ kind: 'credits', user })}>
            Credits
          </Button>
          <Button size="compact-xs" variant="default" onClick={() => setAction({ kind: 'plan', user })}>
            Plan
          </Button>
          <Button size="compact-xs" variant="default" onClick={() => setAction({ kind: 'accounts', user })}>
            Accounts
          </Button>
          <Button
            size="compact-xs"
            variant="default"
            color={user.disabled ? undefined : 'red'}
            onClick={() => setAction({ kind: 'disable', user })}
          >
            {user.disabled ? 'Enable' : 'Disable'}
          </Button>
        </Group>
      ),
    },
  ];
  const titles = { credits: 'Credits', plan: 'Plan', accounts: 'Sending accounts', disable: 'Access' } as const;
  return (
    <>
      <DataTable<TOperatorUser>
        label="Users"
        queryKey={operatorKeys.users}
        url={OPERATOR_USERS_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        searchable
        emptyText="No users match."
      />
      <Modal
        opened={action !== null}
        onClose={close}
        title={action ? `${titles[action.kind]}: ${action.user.email}` : ''}
        size={action?.kind === 'accounts' ? 'lg' : 'md'}
      >
        {action?.kind === 'credits' && <CreditsForm user={action.user} onClose={close} />}
        {action?.kind === 'plan' && <PlanForm user={action.user} onClose={close} />}
        {action?.kind === 'accounts' && <AccountsPanel user={action.user} />}
        {action?.kind === 'disable' && <DisableForm user={action.user} onClose={close} />}
      </Modal>
    </>
  );
};
