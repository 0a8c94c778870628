import {
  Alert,
  Anchor,
  Center,
  Code,
  Drawer,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
} from '@mantine/core';
import type { TTestInboxMessage } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { Fact } from '../../components/Fact';
import { ScoreGauge } from '../spam-test/ScoreGauge';
import { SpamReport } from '../spam-test/SpamReport';
import { messageHtmlUrl, messageRawUrl, useTestInboxAnalysis, useTestInboxMessage } from './test-inbox.queries';

type TView = 'html' | 'text' | 'headers' | 'analysis';

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
/** What a receiver sees of the message: the headers as received, or the spam test's findings and score. */
const AnalysisView = ({
  id,
  view,
  analysis,
}: {
  id: number;
  view: 'headers' | 'analysis';
  analysis: ReturnType<typeof useTestInboxAnalysis>;
}) => {
  if (analysis.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={view === 'analysis' ? 'Analysing the message' : 'Loading the headers'} />
      </Center>
    );
  }
  if (analysis.isError) {
    return (
      <Alert color="red" icon={<IconAlertCircle size={18} />}>
        {analysis.error.message}
      </Alert>
    );
  }
  const { headers, report } = analysis.data;
  if (!headers || !report) {
    return <Alert color="gray">This message was kept before Sendwell stored messages as they arrive.</Alert>;
  }
  if (view === 'headers') {
    return (
      <Stack gap="xs">
        <Anchor href={messageRawUrl(id)} size="sm">
          Download the message as it arrived (.eml)
        </Anchor>
        <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {headers}
        </Code>
      </Stack>
    );
  }
  return (
    <Stack>
      <Group gap="lg" wrap="nowrap">
        <ScoreGauge score={report.score} size={120} />
        <Text size="sm">
          The spam test's analysis of this message, as a receiver would see it. The test inbox is on this machine, so
          authentication is judged as if the message came from here.
        </Text>
      </Group>
      <SpamReport report={report} />
    </Stack>
  );
};

export const MessagePreview = ({ message, onClose }: TProps) => {
  const detail = useTestInboxMessage(message?.id ?? null);
  const formatDateTime = useFormatDateTime();
  const [view, setView] = useState<TView>('html');

  const data = detail.data;
  const analysis = useTestInboxAnalysis(message && (view === 'analysis' || view === 'headers') ? message.id : null);
  const showsHtml = data?.has_html === true && (view === 'html' || (view === 'text' && !data.text_body));
  const parts = [
    ...(data?.has_html ? [{ value: 'html', label: 'HTML' }] : []),
    ...(data?.text_body ? [{ value: 'text', label: 'Text' }] : []),
    { value: 'headers', label: 'Headers' },
    { value: 'analysis', label: 'Spam analysis' },
  ];

  return (
    <Drawer
      opened={message !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={650}>{message?.subject || '(no subject)'}</Text>}
    >
      {message && (
        <Stack data-testid="message-preview">
          <SimpleGrid cols={{ base: 1, xs: 3 }}>
            <Fact label="From" value={message.mail_from || '—'} />
            <Fact label="To" value={message.rcpt_to.join(', ')} />
            <Fact label="Received" value={formatDateTime(message.created_at)} />
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
              <SegmentedControl
                aria-label="Message part"
                w="fit-content"
                data={parts}
                value={parts.some((part) => part.value === view) ? view : parts[0]!.value}
                onChange={(value) => setView(value as TView)}
              />
              {view === 'analysis' || view === 'headers' ? (
                <AnalysisView id={message.id} view={view} analysis={analysis} />
              ) : showsHtml ? (
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
