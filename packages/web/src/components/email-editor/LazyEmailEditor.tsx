import { Group, Loader, Text } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { TEmailEditorProps } from './EmailEditor';

export type { TEmailContent } from './EmailEditor';

/** The editor on a chunk of its own (B17): fetched when a screen that edits a message first shows it. */
const EmailEditor = lazy(() => import('./EmailEditor'));

export const LazyEmailEditor = (props: TEmailEditorProps) => (
  <Suspense
    fallback={
      <Group gap="xs" py="md" data-testid="email-editor-loading">
        <Loader size="xs" aria-hidden />
        <Text size="sm" c="dimmed">
          Loading the editor…
        </Text>
      </Group>
    }
  >
    <EmailEditor {...props} />
  </Suspense>
);
