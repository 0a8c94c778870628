import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import type { TSendAfterVerification } from '@sendwell/contracts';
import { IconShieldCheck } from '@tabler/icons-react';
import { showError } from '../../app/errors';
import { VerificationProgress } from './VerificationProgress';
import { useCancelWaitingSend } from './waiting-sends.queries';

/**
 * A send waiting for its lists' verification (the verify-lists upsell), above the form: the
 * verification's progress bar and what happens next; Cancel gives the send up (the
 * verification goes on). When the verification ends it goes out by itself and the page
 * shows its progress card instead.
 */
export const WaitingSendCard = ({ waiting }: { waiting: TSendAfterVerification }) => {
  const cancel = useCancelWaitingSend();
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="section"
      aria-label={`“${waiting.subject}” waits for the verification`}
      data-testid="waiting-send"
    >
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Group gap="xs" wrap="nowrap" miw={0}>
            <IconShieldCheck size={20} aria-hidden style={{ flexShrink: 0 }} />
            <Text fw={600} truncate>
              “{waiting.subject}”
            </Text>
          </Group>
          <Badge variant="light" color="grape" style={{ flexShrink: 0 }}>
            {waiting.status === 'starting' ? 'Starting' : 'Verifying the lists'}
          </Badge>
        </Group>
        <VerificationProgress waiting={waiting} />
        <Text size="sm" c="dimmed">
          It goes out by itself as soon as the lists are verified
          {waiting.leaveOutInvalid
            ? ', without the addresses found invalid (they are unsubscribed from the lists)'
            : ''}
          . You can leave this page.
        </Text>
        {waiting.status === 'waiting' && (
          <Group justify="flex-end">
            <Button
              size="xs"
              variant="default"
              loading={cancel.isPending}
              onClick={() => cancel.mutate(waiting.storageId, { onError: showError })}
            >
              Don't send it
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
};
