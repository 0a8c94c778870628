import { Stack, Text } from '@mantine/core';

/** A small labelled value in a message's or a test's header ("FROM ann@example.com"); long addresses wrap. */
export const Fact = ({ label, value }: { label: string; value: string }) => (
  <Stack gap={2}>
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {value}
    </Text>
  </Stack>
);
