import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { Brand } from '../../components/Brand';

type TProps = {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  /** The card's widest; forms read best narrow, plan choices need room. */
  width?: number;
};

/** The signed-out pages: one card, no shell. */
export const AuthLayout = ({ title, description, children, width = 420 }: TProps) => {
  useDocumentTitle(`${title} · Sendwell`);
  return (
    <Center component="main" mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Stack w="100%" maw={width} gap="lg">
        <Center>
          <Brand />
        </Center>
        <Paper withBorder shadow="sm" p="xl">
          <Title order={1} fz="h3">
            {title}
          </Title>
          {description && (
            <Text c="dimmed" size="sm" mt={4}>
              {description}
            </Text>
          )}
          <Box mt="lg">{children}</Box>
        </Paper>
      </Stack>
    </Center>
  );
};
