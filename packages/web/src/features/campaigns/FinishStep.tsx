import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { TCampaignDraft } from '@sendwell/contracts';
import { useNavigate } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { PreSendChecklist } from '../send-email/PreSendChecklist';
import { useCampaignPreSendCheck } from '../send-email/send-email.queries';
import { useCampaignMutation } from './campaigns.queries';

/** Step 6 (spec §2 Finish): what will go, and the button that saves and starts it. */
export const FinishStep = ({ draft }: { draft: TCampaignDraft }) => {
  const formatDateTime = useFormatDateTime();
  const navigate = useNavigate();
  const finish = useCampaignMutation('finish', (answer) => navigate(`/campaigns/detail/${answer.id as number}`));
  const preSend = useCampaignPreSendCheck(draft.temporaryKey);
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} fz="md">
          {draft.start.title}
        </Title>
        <Text size="sm">From {draft.start.from}</Text>
        <Text size="sm">
          {draft.recipients.count.toLocaleString('en-US')} recipients, {draft.drips.length} email
          {draft.drips.length === 1 ? '' : 's'};{' '}
          {draft.options.scheduled && draft.options.scheduleTime
            ? `the first mail goes on ${formatDateTime(draft.options.scheduleTime)}.`
            : 'the first mails go as soon as the campaign is saved, inside its sending windows.'}
        </Text>
        {/* Before it starts (issue 31 §1): the same checklist as Send Email's; nothing is blocked. */}
        <PreSendChecklist
          check={preSend.data}
          isPending={preSend.isPending}
          isError={preSend.isError}
          onRetry={() => void preSend.refetch()}
          heading="Before it starts"
          question="Start it anyway?"
        />
        <Group justify="flex-end">
          <Button
            loading={finish.isPending}
            color={preSend.data?.hasFailures ? 'red' : undefined}
            onClick={() => finish.mutate({ body: { temporary: draft.temporaryKey } }, { onError: showError })}
          >
            Save Campaign
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
};
