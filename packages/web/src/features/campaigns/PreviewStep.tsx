import { ActionIcon, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { campaignsApi, renderMergeFields, type TCampaignDraft, waitText, withSignature } from '@sendwell/contracts';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';
import { PreviewFrame } from '../../components/PreviewFrame';
import { campaignKeys, useCampaignMutation } from './campaigns.queries';

/** Step 4 (spec §2 Preview): each email as one recipient gets it (up to 50 recipients), with the waits between. */
export const PreviewStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('savePreview');
  const [index, setIndex] = useState(0);
  const recipients = useQuery({
    queryKey: [...campaignKeys.draft(draft.temporaryKey), 'preview'],
    queryFn: ({ signal }) =>
      callRoute(campaignsApi.previewRecipients, { body: { temporary: draft.temporaryKey }, signal }),
  });
  const list = recipients.data?.recipients ?? [];
  const recipient = list[index];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} fz="md">
          {recipient ? `${recipient.name || recipient.email} <${recipient.email}>` : 'Preview'}
        </Title>
        <Group gap="xs">
          <ActionIcon
            variant="default"
            aria-label="Previous recipient"
            disabled={index === 0}
            onClick={() => setIndex(index - 1)}
          >
            <IconChevronLeft size={16} aria-hidden />
          </ActionIcon>
          <Text size="sm" data-testid="preview-index">
            {list.length === 0 ? '0 / 0' : `${index + 1} / ${list.length}`}
          </Text>
          <ActionIcon
            variant="default"
            aria-label="Next recipient"
            disabled={index >= list.length - 1}
            onClick={() => setIndex(index + 1)}
          >
            <IconChevronRight size={16} aria-hidden />
          </ActionIcon>
        </Group>
      </Group>
      {recipient &&
        draft.drips.map((step, position) => {
          const merge = { email: recipient.email, name: recipient.name, fields: recipient.variables };
          return (
            <Stack key={step.id} gap={4}>
              {position > 0 && (
                <Text size="sm" c="dimmed" ta="center">
                  — wait {waitText(step.period, step.frequency)} —
                </Text>
              )}
              <Paper withBorder p="sm" radius="md">
                <Text size="sm" fw={600}>
                  #Email - {position + 1}: {renderMergeFields(step.subject, merge, false)}
                </Text>
                <PreviewFrame
                  title={`Email ${position + 1} for ${recipient.email}`}
                  html={withSignature(renderMergeFields(step.body, merge, true), draft.start.signature)}
                  height={180}
                />
              </Paper>
            </Stack>
          );
        })}
      <Group justify="flex-end">
        <Button
          onClick={() =>
            save.mutate({ body: { temporary: draft.temporaryKey } }, { onSuccess: onSaved, onError: showError })
          }
        >
          Next
        </Button>
      </Group>
    </Stack>
  );
};
