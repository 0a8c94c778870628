import { Button, Checkbox, Group, Modal, NumberInput, Stack, Table, TextInput } from '@mantine/core';
import { type TOperatorPlan, ZPlanInput } from '@sendwell/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { ActionsHeader } from '../../components/ActionsHeader';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { TableScroller } from '../../components/TableScroller';
import { usePlans, useSavePlan } from './operator.queries';

const EMPTY_PLAN = {
  name: '',
  plan_name: '',
  price: 0,
  monthly_credits: 0,
  trial_credits: 0,
  allows_scheduling: true,
  allows_accounts: true,
  stripe_price_id: null,
};

const PlanForm = ({ plan, onClose }: { plan: TOperatorPlan | null; onClose: () => void }) => {
  const save = useSavePlan(plan?.id ?? null);
  const form = useZodForm(ZPlanInput, {
    initialValues: plan ? { ...plan } : EMPTY_PLAN,
    onSubmit: (body, { fail }) =>
      save.mutate(body, {
        onSuccess: ({ message }) => {
          showSuccess(message, 'Done');
          onClose();
        },
        onError: fail,
      }),
  });
  const number = (field: 'price' | 'monthly_credits' | 'trial_credits', label: string) => (
    <NumberInput
      label={label}
      min={0}
      decimalScale={field === 'price' ? 2 : 0}
      value={form.values[field] as number}
      error={form.errors[field]}
      onChange={(value) => form.setValue(field, Number(value))}
    />
  );
  return (
    <FormStack onSubmit={form.onSubmit} error={form.formError}>
      <TextInput label="Name" required data-autofocus {...form.inputProps('name')} />
      <TextInput
        label="Slug"
        required
        description="Lower-case letters, digits and dashes."
        {...form.inputProps('plan_name')}
      />
      <Group grow>
        {number('price', 'Price (USD / month)')}
        {number('monthly_credits', 'Monthly credits')}
        {number('trial_credits', 'Trial credits')}
      </Group>
      <Checkbox
        label="Scheduled sending"
        checked={form.values.allows_scheduling as boolean}
        onChange={(event) => form.setValue('allows_scheduling', event.currentTarget.checked)}
      />
      <Checkbox
        label="Own sending accounts"
        checked={form.values.allows_accounts as boolean}
        onChange={(event) => form.setValue('allows_accounts', event.currentTarget.checked)}
      />
      <TextInput
        label="Stripe price id"
        value={(form.values.stripe_price_id as string | null) ?? ''}
        error={form.errors.stripe_price_id}
        onChange={(event) => form.setValue('stripe_price_id', event.currentTarget.value || null)}
      />
      <DialogActions onCancel={onClose}>
        <Button type="submit" loading={save.isPending}>
          Save plan
        </Button>
      </DialogActions>
    </FormStack>
  );
};

export const PlansTab = () => {
  const plans = usePlans();
  const [editing, setEditing] = useState<TOperatorPlan | 'new' | null>(null);
  if (plans.isError)
    return <LoadFailedAlert title="The plans could not be loaded." onRetry={() => void plans.refetch()} />;
  return (
    <Stack>
      <Group justify="flex-end">
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
          New plan
        </Button>
      </Group>
      <TableScroller label="Plans">
        <Table striped aria-label="Plans" miw={700}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Slug</Table.Th>
              <Table.Th ta="right">Price</Table.Th>
              <Table.Th ta="right">Monthly</Table.Th>
              <Table.Th ta="right">Trial</Table.Th>
              <Table.Th>Allows</Table.Th>
              <Table.Th ta="right">Users</Table.Th>
              <ActionsHeader />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(plans.data ?? []).map((plan) => (
              <Table.Tr key={plan.id}>
                <Table.Td>{plan.name}</Table.Td>
                <Table.Td>{plan.plan_name}</Table.Td>
                <Table.Td ta="right">{plan.is_free ? 'Free' : `$${plan.price.toFixed(2)}`}</Table.Td>
                <Table.Td ta="right">{plan.monthly_credits.toLocaleString('en-US')}</Table.Td>
                <Table.Td ta="right">{plan.trial_credits.toLocaleString('en-US')}</Table.Td>
                <Table.Td>
                  {[plan.allows_scheduling && 'scheduling', plan.allows_accounts && 'accounts']
                    .filter(Boolean)
                    .join(', ') || 'test inbox only'}
                </Table.Td>
                <Table.Td ta="right">{plan.users}</Table.Td>
                <Table.Td>
                  <Button
                    size="compact-xs"
                    variant="default"
                    onClick={() => setEditing(plan)}
                    aria-label={`Edit ${plan.name}`}
                  >
                    Edit
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New plan' : `Edit ${editing?.name ?? ''}`}
        size="lg"
      >
        {editing !== null && <PlanForm plan={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      </Modal>
    </Stack>
  );
};
