import { Button, Group, NumberInput, Text, Title } from '@mantine/core';
import {
  BREAKER_LIMITS,
  breakerRangeText,
  CIRCUIT_BREAKER,
  type TSendingAccount,
  ZBreakerSettings,
} from '@sendwell/contracts';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { FormError } from '../../components/FormError';
import { FormStack } from '../../components/FormStack';
import { useSaveBreakerLines } from './accounts.queries';

/**
 * The circuit breaker's lines of one account (issue 31): a send through it pauses itself
 * when, after 200 messages, its hard bounces or spam complaints pass them.
 */
export const BreakerSettings = ({ account }: { account: TSendingAccount }) => {
  const save = useSaveBreakerLines(account.id);
  const form = useZodForm(ZBreakerSettings, {
    initialValues: {
      breakerBouncePercent: account.breakerBouncePercent,
      breakerComplaintPercent: account.breakerComplaintPercent,
    },
    onSubmit: (body, { fail }) =>
      save.mutate(body, {
        onSuccess: ({ message }) => showSuccess(message, null),
        onError: fail,
      }),
  });
  // The range is said beside each field and checked on Save with the server's own schema; the
  // input does not clamp a value out of range on its own (a silent change is worse than a message).
  const number = (
    field: 'breakerBouncePercent' | 'breakerComplaintPercent',
    range: { min: number; max: number },
    step: number,
  ) => ({
    // An empty field is NaN to the schema, which refuses it with the range's message.
    value: Number.isNaN(form.values[field]) ? '' : form.values[field],
    error: form.errors[field],
    onChange: (value: number | string) => form.setValue(field, value === '' ? Number.NaN : Number(value)),
    min: range.min,
    max: range.max,
    clampBehavior: 'none' as const,
    step,
    decimalScale: 3,
    allowNegative: false,
    suffix: ' %',
    required: true,
    description: `${breakerRangeText(range).replace(/^f/, 'F')}.`,
    inputWrapperOrder: ['label', 'input', 'description', 'error'] as ('label' | 'input' | 'description' | 'error')[],
  });
  const headingId = `breaker-${account.id}`;
  return (
    <FormStack onSubmit={form.onSubmit} gap="xs" aria-labelledby={headingId}>
      <Title order={3} fz="md" id={headingId}>
        Pause a send that hurts this sender
      </Title>
      <Text size="sm" c="dimmed">
        After {CIRCUIT_BREAKER.minAttempts} messages, a send through this account pauses itself and tells you when more
        of them bounce hard, or more recipients mark it as spam, than these limits. Gmail and Yahoo start filtering a
        sender whose complaints pass 0.3 %.
      </Text>
      <FormError message={form.formError} />
      <Group align="flex-start" grow>
        <NumberInput
          label="Hard bounces above"
          {...number('breakerBouncePercent', BREAKER_LIMITS.bouncePercent, 0.5)}
        />
        <NumberInput
          label="Spam complaints above"
          {...number('breakerComplaintPercent', BREAKER_LIMITS.complaintPercent, 0.01)}
        />
      </Group>
      <Group justify="flex-end">
        <Button type="submit" variant="default" loading={save.isPending}>
          Save limits
        </Button>
      </Group>
    </FormStack>
  );
};
