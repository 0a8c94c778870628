import { Anchor, Button, Group, Select, Stack, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { timeZoneLabel } from '@sendwell/contracts';
import { IconCalendar, IconClock, IconWorld, IconX } from '@tabler/icons-react';
import { memo } from 'react';
import { Link } from 'react-router';
import { OPTIONS_WHILE_OPEN } from './dropdown';
import { ScheduleUpgradeNote } from './ScheduleUpgradeNote';
import { slotsFor, type TSendFormValues, todayIn } from './send-email.form';

export type TDeliveryValue = Pick<TSendFormValues, 'deliveryDate' | 'deliverySlot'>;

type TProps = {
  value: TDeliveryValue;
  onChange: (value: TDeliveryValue) => void;
  timeZone: string;
  allowsScheduling: boolean;
  error?: string;
  /** The date input's id; the time select takes it with `-time`. */
  id: string;
  /**
   * A time must be chosen (editing a scheduled email, a campaign's first mail): no "send now"
   * way out is offered, and the fields say they are required.
   */
  isRequired?: boolean;
  /** The two fields' labels, when they are not a delivery's (a drip campaign's first mail). */
  labels?: { date: string; time: string };
};

/**
 * Send later (spec §5, §9): a day from today on and a time in 5-minute steps up to 11:30 PM,
 * both in the user's time zone, sent as `YYYY-MM-DD hh:mm A`. Blank sends now.
 */
export const DeliveryTimePicker = memo(
  ({ value, onChange, timeZone, allowsScheduling, error, id, isRequired = false, labels }: TProps) => {
    const isDisabled = !allowsScheduling;
    const hasValue = Boolean(value.deliveryDate || value.deliverySlot);
    const slots = slotsFor(value.deliveryDate, timeZone);

    const chooseDate = (deliveryDate: string | null) => {
      // A time already gone on the newly chosen day is dropped rather than sent and refused.
      const slot = slotsFor(deliveryDate, timeZone).find((candidate) => candidate.value === value.deliverySlot);
      onChange({ deliveryDate, deliverySlot: slot && !('disabled' in slot && slot.disabled) ? slot.value : null });
    };

    return (
      <Stack gap={6}>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <DatePickerInput
            id={id}
            label={labels?.date ?? 'Delivery date'}
            placeholder={isRequired ? 'Choose a day' : 'Send now'}
            required={isRequired}
            valueFormat="YYYY-MM-DD"
            leftSection={<IconCalendar size={16} aria-hidden />}
            minDate={todayIn(timeZone)}
            value={value.deliveryDate}
            onChange={chooseDate}
            disabled={isDisabled}
            error={error}
            w={{ base: '100%', xs: 180 }}
          />
          <Select
            id={`${id}-time`}
            label={labels?.time ?? 'Delivery time'}
            required={isRequired}
            comboboxProps={OPTIONS_WHILE_OPEN}
            placeholder="hh:mm"
            leftSection={<IconClock size={16} aria-hidden />}
            data={slots}
            value={value.deliverySlot}
            onChange={(deliverySlot) => onChange({ ...value, deliverySlot })}
            searchable
            allowDeselect={false}
            nothingFoundMessage="No such time; times go in 5-minute steps up to 11:30 PM."
            disabled={isDisabled}
            error={error ? ' ' : undefined}
            w={{ base: '100%', xs: 150 }}
          />
          {hasValue && !isDisabled && !isRequired && (
            <Button
              variant="subtle"
              color="gray"
              mt={{ base: 0, xs: 25 }}
              leftSection={<IconX size={14} aria-hidden />}
              onClick={() => onChange({ deliveryDate: null, deliverySlot: null })}
            >
              Send now instead
            </Button>
          )}
        </Group>
        {isDisabled && <ScheduleUpgradeNote />}
        <Group gap={4} wrap="nowrap">
          <IconWorld size={14} color="var(--mantine-color-dimmed)" aria-hidden />
          <Text size="xs" c="dimmed">
            Times are in your time zone, {timeZoneLabel(timeZone)} (
            <Anchor component={Link} to="/settings/profile" size="xs">
              change it
            </Anchor>
            ).{isDisabled || isRequired ? '' : ' Leave both blank to send now.'}
          </Text>
        </Group>
      </Stack>
    );
  },
);
