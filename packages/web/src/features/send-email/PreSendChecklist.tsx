import { Accordion, Alert, Badge, Button, Group, List, Loader, Stack, Text } from '@mantine/core';
import {
  PRE_SEND_GROUP_TITLES,
  PRE_SEND_GROUPS,
  type TPreSendCheck,
  type TPreSendItem,
  worstStatus,
} from '@sendwell/contracts';
import { IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import { CHECK_LOOK, CheckItem, CheckStatusIcon } from '../../components/CheckItem';

const countsOf = (items: TPreSendItem[]) => {
  const problems = items.filter((item) => item.status === 'fail').length;
  const checks = items.filter((item) => item.status === 'warn').length;
  return [problems > 0 ? `${problems} to fix` : null, checks > 0 ? `${checks} to check` : null]
    .filter(Boolean)
    .join(', ');
};

/**
 * The pre-send checklist in Send Email's confirmation, the spam test's and the drip wizard's
 * Finish (issue 31 §1): a line per group
 * (sending domain, message, lists) with its worst status, each expandable into its items and
 * what to do. Nothing here stops a send.
 */
export const PreSendChecklist = ({
  check,
  isPending,
  isError,
  onRetry,
  question = 'Send it anyway?',
  heading = 'Before it goes',
  shownAbove = [],
}: {
  check: TPreSendCheck | undefined;
  isPending: boolean;
  isError: boolean;
  onRetry: () => void;
  /** What a red item asks: "Send it anyway?" (a send, a spam test), "Start it anyway?" (a drip campaign). */
  question?: string;
  heading?: string;
  /** Items the screen shows above the checklist in a form of its own (Send Email's unverified warning): not repeated here. */
  shownAbove?: string[];
}) => {
  if (isPending) {
    return (
      <Group gap="xs" data-testid="pre-send-checking">
        <Loader size="xs" aria-hidden />
        <Text size="sm" c="dimmed">
          Checking the sending domain, the message and the lists…
        </Text>
      </Group>
    );
  }
  if (isError || !check) {
    return (
      <Alert color="gray" icon={<IconInfoCircle size={18} />} title="The pre-send check could not run">
        <Group justify="space-between" gap="xs">
          <Text size="sm">You can still go ahead; the check only advises.</Text>
          <Button size="xs" variant="default" onClick={onRetry}>
            Check again
          </Button>
        </Group>
      </Alert>
    );
  }
  return (
    <Stack gap="xs" data-testid="pre-send-checklist">
      <Text size="sm" fw={600}>
        {heading}
      </Text>
      <Accordion variant="contained" multiple chevronPosition="right">
        {PRE_SEND_GROUPS.map((group) => {
          const items = check.items.filter((item) => item.group === group && !shownAbove.includes(item.id));
          if (items.length === 0) return null;
          const worst = worstStatus(items);
          const summary = countsOf(items);
          return (
            <Accordion.Item key={group} value={group} data-testid={`pre-send-${group}`}>
              <Accordion.Control icon={<CheckStatusIcon status={worst} />}>
                <Group gap="xs" justify="space-between" wrap="nowrap" pr="xs">
                  <Text size="sm" fw={500}>
                    {PRE_SEND_GROUP_TITLES[group]}
                    {group === 'message' ? ` (${check.messageScore} of 10)` : ''}
                  </Text>
                  <Badge color={CHECK_LOOK[worst].color} variant="light" tt="none">
                    {summary || 'All good'}
                  </Badge>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                <List spacing="xs" listStyleType="none" size="sm">
                  {items.map((item) => (
                    <CheckItem key={item.id} item={item} />
                  ))}
                </List>
              </Accordion.Panel>
            </Accordion.Item>
          );
        })}
      </Accordion>
      {check.hasFailures && (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} data-testid="pre-send-failures">
          Some checks found problems that may send this email to spam or get it refused. {question}
        </Alert>
      )}
    </Stack>
  );
};
