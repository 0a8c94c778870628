import { Alert, Button } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';

type TProps = { title: string; onRetry: () => void; mb?: string };

/** A query behind part of a screen failed: say which part, and offer to ask again. */
export const LoadFailedAlert = ({ title, onRetry, mb }: TProps) => (
  <Alert color="red" icon={<IconAlertCircle size={18} />} title={title} mb={mb}>
    <Button size="xs" variant="light" color="red" mt="xs" onClick={onRetry}>
      Try again
    </Button>
  </Alert>
);
