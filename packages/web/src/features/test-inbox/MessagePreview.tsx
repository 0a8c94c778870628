import { Alert, Center, Code, Drawer, Loader, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import type { TTestInboxMessage } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { messageHtmlUrl, useTestInboxMessage } from './test-inbox.queries';

type TView = 'html' | 'text';

const Field = ({ label, value }: { label: string; value: string }) => (
  <Stack gap={2}>
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {value}
    </Text>
  </Stack>
);

type TProps = {
  /** The row that was clicked: its headers show at once, the body follows. */
  message: TTestInboxMessage | null;
  onClose: () => void;
};

/**
 * One received message. Its HTML is whatever someone sent, so it is shown only in a frame with
 * an empty `sandbox` (no scripts, no forms, no same-origin access to this app), from a URL the
 * server also serves with a sandbox policy.
 */
export const MessagePreview = ({ message, onClose }: TProps) => {
  const detail = useTestInboxMessage(message?.id ?? null);
  const formatDateTime = useFormatDateTime();
  const [view, setView] = useState<TView>('html');

  const data = detail.data;
  const hasBoth = Boolean(data?.has_html && data.text_body);
  const showsHtml = data?.has_html === true && (view === 'html' || !data.text_body);

  return (
    <Drawer
      opened={message !== null}
      onClose={onClose}
      position="right"
      closeButtonProps={{ 'aria-label': 'Close' }}
      size="xl"
      title={<Text fw={650}>{message?.subject || '(no subject)'}</Text>}
    >
      {message && (
        <Stack data-testid="message-preview">
          <SimpleGrid cols={{ base: 1, xs: 3 }}>
            <Field label="From" value={message.mail_from || '—'} />
            <Field label="To" value={message.rcpt_to.join(', ')} />
            <Field label="Received" value={formatDateTime(message.created_at)} />
          </SimpleGrid>
          {detail.isPending ? (
            <Center py="xl">
              <Loader aria-label="Loading message" />
            </Center>
          ) : detail.isError ? (
            <Alert color="red" icon={<IconAlertCircle size={18} />}>
              {detail.error.message}
            </Alert>
          ) : (
            <>
              {hasBoth && (
                <SegmentedControl
                  aria-label="Message part"
                  w="fit-content"
                  data={[
                    { value: 'html', label: 'HTML' },
                    { value: 'text', label: 'Text' },
                  ]}
                  value={view}
                  onChange={(value) => setView(value === 'text' ? 'text' : 'html')}
                />
              )}
              {showsHtml ? (
                <iframe
                  key={message.id}
                  title="Message preview"
                  sandbox=""
                  referrerPolicy="no-referrer"
                  src={messageHtmlUrl(message.id)}
                  style={{
                    width: '100%',
                    height: '65vh',
                    border: '1px solid var(--mantine-color-default-border)',
                    borderRadius: 'var(--mantine-radius-sm)',
                    background: 'white',
                  }}
                />
              ) : (
                <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {data?.text_body || 'This message has no text.'}
                </Code>
              )}
            </>
          )}
        </Stack>
      )}
    </Drawer>
  );
};
