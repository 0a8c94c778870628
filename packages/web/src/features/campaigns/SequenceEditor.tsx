import { Button, Grid, Group, Stack } from '@mantine/core';
import type { TDailyPlan } from '@sendwell/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useCallback } from 'react';
import { DaysPanel } from './DaysPanel';
import { StepCard } from './StepCard';
import { newStep, type TSequenceErrors, type TSequenceForm, type TStepForm } from './sequence-form';

// The sequence's form rules, where the editor's users and its tests have always found them.
export {
  checkSequence,
  emptySequence,
  liveSequenceErrors,
  newStepKey,
  type TSequenceErrors,
  type TSequenceForm,
  type TStepForm,
} from './sequence-form';

/**
 * The sequence editor (spec §2): '#Email - N' cards, ADD STEP, and the weekday windows
 * beside them. It edits the values of a form (`useSequenceForm`): `onChange` takes an update
 * of the previous value (the form's state setter), so the callbacks handed to the cards stay
 * the same from one keystroke to the next.
 */
export const SequenceEditor = ({
  value,
  errors,
  variables,
  onChange,
}: {
  value: TSequenceForm;
  errors: TSequenceErrors;
  variables: string[];
  onChange: (update: (previous: TSequenceForm) => TSequenceForm) => void;
}) => {
  const setStep = useCallback(
    (key: string, patch: Partial<TStepForm>) =>
      onChange((previous) => ({
        ...previous,
        drips: previous.drips.map((step) => (step.key === key ? { ...step, ...patch } : step)),
      })),
    [onChange],
  );
  const deleteStep = useCallback(
    (key: string) =>
      onChange((previous) => ({ ...previous, drips: previous.drips.filter((other) => other.key !== key) })),
    [onChange],
  );
  const setDailyPlan = useCallback(
    (dailyPlan: TDailyPlan) => onChange((previous) => ({ ...previous, dailyPlan })),
    [onChange],
  );
  const addStep = () =>
    onChange((previous) => ({ ...previous, drips: [...previous.drips, newStep(previous.drips[0])] }));
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 8 }}>
        <Stack gap="md">
          {value.drips.map((step, index) => (
            <StepCard
              key={step.key}
              step={step}
              index={index}
              errors={errors}
              variables={variables}
              onPatch={setStep}
              onDelete={deleteStep}
            />
          ))}
          <Group>
            <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} onClick={addStep}>
              ADD STEP
            </Button>
          </Group>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 4 }}>
        <DaysPanel plan={value.dailyPlan} error={errors.dailyPlan} onChange={setDailyPlan} />
      </Grid.Col>
    </Grid>
  );
};
