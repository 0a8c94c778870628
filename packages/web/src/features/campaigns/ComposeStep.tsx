import { Alert, Button, Group, Stack } from '@mantine/core';
import type { TCampaignDraft } from '@sendwell/contracts';
import { useMemo } from 'react';
import { useCampaignMutation } from './campaigns.queries';
import { SequenceEditor } from './SequenceEditor';
import { sequenceFormOf, useSequenceForm } from './sequence-form';

/** Step 3 (spec §2 Compose): the sequence editor, saved with Next. */
export const ComposeStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('saveSequence');
  const form = useSequenceForm({
    initialValues: sequenceFormOf(draft.drips, draft.dailyPlan),
    requestField: 'drips',
    onSubmit: (body, fail) =>
      save.mutate({ body: { temporary: draft.temporaryKey, ...body } }, { onSuccess: onSaved, onError: fail }),
  });
  const variables = useMemo(() => ['email', 'name', ...draft.recipients.variables], [draft.recipients.variables]);
  const firstError = Object.values(form.errors)[0];
  return (
    <Stack>
      <SequenceEditor value={form.values} errors={form.errors} variables={variables} onChange={form.setValues} />
      {firstError && (
        <Alert color="red" role="alert">
          {firstError}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={() => form.onSubmit()} loading={save.isPending}>
          Next
        </Button>
      </Group>
    </Stack>
  );
};
