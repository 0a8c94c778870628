import { Button, Group, NumberInput, SegmentedControl, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { AB_METRIC_LABELS, AB_TEST_LIMITS, abSplitSizes, describeWait } from '@sendwell/contracts';
import { IconPlus, IconX } from '@tabler/icons-react';
import { memo } from 'react';
import { OPTIONS_WHILE_OPEN } from './dropdown';
import { abWaitMinutesOf, fieldId, type TFieldErrors, type TSendFormValues, textFieldProps } from './send-email.form';

type TProps = {
  values: Pick<
    TSendFormValues,
    | 'abTest'
    | 'subject'
    | 'subjectB'
    | 'subjectC'
    | 'hasSubjectC'
    | 'abTestPercent'
    | 'abWaitValue'
    | 'abWaitUnit'
    | 'abMetric'
  >;
  errors: TFieldErrors;
  /** Subscribed addresses of the chosen lists, for the split's figures (before suppressions); null until known. */
  audience: number | null;
  onChange: (patch: Partial<TSendFormValues>) => void;
};

/**
 * The A/B subject test (issue 31 §4): a second (and third) subject, the share of the
 * recipients that tests them, when the winner is chosen and by what. The Subject field above
 * is subject A.
 */
export const AbTestFields = memo(({ values, errors, audience, onChange }: TProps) => {
  const subjects = values.hasSubjectC ? 3 : 2;
  const percent = Number(values.abTestPercent);
  const waitMinutes = abWaitMinutesOf(values);
  const split = audience !== null && Number.isFinite(percent) ? abSplitSizes(audience, percent, subjects) : null;
  return (
    <Stack gap="sm">
      <Stack gap={2}>
        {/* The explanation outside the label (Mantine puts a description inside it): the form's
            Subject field is found by its label, which must stay the only one saying "subject". */}
        <Switch
          id={fieldId('abTest')}
          label="A/B test"
          aria-describedby="ab-test-help"
          checked={values.abTest}
          error={errors.abTest}
          onChange={(event) => onChange({ abTest: event.currentTarget.checked })}
        />
        <Text size="xs" c="dimmed" id="ab-test-help">
          Try two or three subject lines on a share of the recipients; the better one goes to the rest by itself.
        </Text>
      </Stack>
      {values.abTest && (
        <Stack gap="sm" data-testid="ab-test-fields">
          <Text size="sm" c="dimmed">
            Subject A is the Subject above: “{values.subject.trim() || '…'}”.
          </Text>
          <TextInput label="Subject B" required {...textFieldProps('subjectB', values, errors, onChange)} />
          {values.hasSubjectC ? (
            <Group align="flex-end" gap="xs" wrap="nowrap">
              <TextInput
                label="Subject C"
                style={{ flex: 1 }}
                {...textFieldProps('subjectC', values, errors, onChange)}
              />
              <Button
                variant="subtle"
                color="gray"
                leftSection={<IconX size={14} aria-hidden />}
                onClick={() => onChange({ hasSubjectC: false, subjectC: '' })}
              >
                Remove subject C
              </Button>
            </Group>
          ) : (
            <Group>
              <Button
                variant="subtle"
                size="compact-sm"
                leftSection={<IconPlus size={14} aria-hidden />}
                onClick={() => onChange({ hasSubjectC: true })}
              >
                Add subject C
              </Button>
            </Group>
          )}
          <Group align="flex-start" grow>
            <NumberInput
              id={fieldId('abTestPercent')}
              label="Test share (%)"
              description="Of the recipients, split evenly among the subjects"
              min={AB_TEST_LIMITS.minPercent}
              max={AB_TEST_LIMITS.maxPercent}
              clampBehavior="none"
              allowDecimal={false}
              value={values.abTestPercent}
              error={errors.abTestPercent}
              onChange={(value) => onChange({ abTestPercent: value })}
            />
            <Group align="flex-start" gap="xs" wrap="nowrap">
              <NumberInput
                id={fieldId('abWaitMinutes')}
                label="Choose the winner after"
                description="Decimals allowed, e.g. 1.5"
                min={0}
                decimalScale={2}
                value={values.abWaitValue}
                error={errors.abWaitMinutes}
                onChange={(value) => onChange({ abWaitValue: value })}
                style={{ flex: 1 }}
              />
              <Select
                label="Unit"
                aria-label="Unit of the wait"
                comboboxProps={OPTIONS_WHILE_OPEN}
                data={[
                  { value: 'minutes', label: 'minutes' },
                  { value: 'hours', label: 'hours' },
                ]}
                value={values.abWaitUnit}
                allowDeselect={false}
                onChange={(unit) => unit && onChange({ abWaitUnit: unit as TSendFormValues['abWaitUnit'] })}
                w={110}
              />
            </Group>
          </Group>
          <Stack gap={4}>
            <Text size="sm" fw={500} id="ab-metric-label">
              The winner is the subject with the better
            </Text>
            <SegmentedControl
              id={fieldId('abMetric')}
              aria-labelledby="ab-metric-label"
              data={[
                { value: 'opens', label: AB_METRIC_LABELS.opens },
                { value: 'clicks', label: AB_METRIC_LABELS.clicks },
              ]}
              value={values.abMetric}
              onChange={(metric) => onChange({ abMetric: metric as TSendFormValues['abMetric'] })}
            />
            {errors.abMetric && (
              <Text size="xs" c="red.8" role="alert">
                {errors.abMetric}
              </Text>
            )}
          </Stack>
          <Text size="sm" c="dimmed" data-testid="ab-test-summary">
            {split
              ? `${split.perPart.toLocaleString('en-US')} ${split.perPart === 1 ? 'recipient gets' : 'recipients get'} each subject now; `
              : 'Each subject goes to the same number of recipients now; '}
            {Number.isFinite(waitMinutes) && waitMinutes > 0 ? `after ${describeWait(waitMinutes)}` : 'after the wait'}{' '}
            the subject with the better {values.abMetric === 'opens' ? 'open' : 'click'} rate goes to the
            {split ? ` other ${split.rest.toLocaleString('en-US')}` : ' rest'}. A tie goes to the better{' '}
            {values.abMetric === 'opens' ? 'click' : 'open'} rate, then to subject A; no{' '}
            {values.abMetric === 'opens' ? 'opens' : 'clicks'} at all sends subject A.
          </Text>
        </Stack>
      )}
    </Stack>
  );
});
