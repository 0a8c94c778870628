import { Button, Grid, Group, Stack } from '@mantine/core';
import type { TDailyPlan } from '@sendwell/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useCallback } from 'react';
import { DaysPanel } from './DaysPanel';
import { DripCard } from './DripCard';
import { newDrip, type TDripForm, type TSequenceErrors, type TSequenceForm } from './sequence-form';

// The sequence's form rules, where the editor's users and its tests have always found them.
export {
  checkSequence,
  emptySequence,
  liveSequenceErrors,
  newDripKey,
  type TDripForm,
  type TSequenceErrors,
  type TSequenceForm,
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
  const setDrip = useCallback(
    (key: string, patch: Partial<TDripForm>) =>
      onChange((previous) => ({
        ...previous,
        drips: previous.drips.map((drip) => (drip.key === key ? { ...drip, ...patch } : drip)),
      })),
    [onChange],
  );
  const deleteDrip = useCallback(
    (key: string) =>
      onChange((previous) => ({ ...previous, drips: previous.drips.filter((other) => other.key !== key) })),
    [onChange],
  );
  const setDailyPlan = useCallback(
    (dailyPlan: TDailyPlan) => onChange((previous) => ({ ...previous, dailyPlan })),
    [onChange],
  );
  const addStep = () =>
    onChange((previous) => ({ ...previous, drips: [...previous.drips, newDrip(previous.drips[0])] }));
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 8 }}>
        <Stack gap="md">
          {value.drips.map((drip, index) => (
            <DripCard
              key={drip.key}
              drip={drip}
              index={index}
              errors={errors}
              variables={variables}
              onPatch={setDrip}
              onDelete={deleteDrip}
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
