import { Button, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { Link } from 'react-router';

export const NotFoundPage = () => {
  useDocumentTitle('Page not found · Sendwell');
  return (
    <Stack align="center" gap="sm" py={80} ta="center">
      <Text c="dimmed" fw={700} fz={48} lh={1}>
        404
      </Text>
      <Title order={1} fz="h2">
        Page not found
      </Title>
      <Text c="dimmed" maw={420}>
        The page you asked for does not exist, or is not part of Sendwell yet.
      </Text>
      <Button component={Link} to="/" variant="light">
        Back to the dashboard
      </Button>
    </Stack>
  );
};
