import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/**
 * A secret shown once (a new API key, a webhook's signing secret): the value to copy, and
 * a button that puts it away. Said so in words, since it cannot be shown again (a key) or
 * only on request (a signing secret).
 */
export const SecretOnce = ({
  title,
  value,
  note,
  onDone,
  testId,
}: {
  title: string;
  value: string;
  note: string;
  onDone: () => void;
  testId: string;
}) => (
  <Alert color="green" title={title} role="status">
    <Stack gap="xs">
      <Text size="sm">{note}</Text>
      <Code block data-testid={testId} style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
        {value}
      </Code>
      <Group gap="xs">
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant="light"
              leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
              onClick={copy}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
        <Button size="xs" variant="subtle" onClick={onDone}>
          I have copied it
        </Button>
      </Group>
    </Stack>
  </Alert>
);
