import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Loader,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { SPAM_TEST_MESSAGES, type TSpamTestResult } from '@sendwell/contracts';
import { IconArrowLeft, IconDeviceFloppy, IconDownload, IconFlame } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { fieldErrors } from '../../app/errors';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { Fact } from '../../components/Fact';
import { FormStack } from '../../components/FormStack';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { previewDocument } from '../send-email/send-email.preview';
import { ScoreGauge } from './ScoreGauge';
import { ENGINE_STATUS_LABELS, SpamReport } from './SpamReport';
import { rawUrl, useSaveSpamTestTemplate, useSpamTestEvents, useSpamTestResult } from './spam-test.queries';

const SaveAsTemplate = ({ test, onClose }: { test: TSpamTestResult; onClose: () => void }) => {
  const save = useSaveSpamTestTemplate();
  const [name, setName] = useState(test.subject);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError('Template name field is required!');
      return;
    }
    save.mutate(
      { name, sent_id: test.id },
      {
        onSuccess: ({ message }) => {
          showSuccess(message);
          onClose();
        },
        onError: (failure) => setError(fieldErrors(failure).name ?? null),
      },
    );
  };
  return (
    <FormStack onSubmit={submit}>
      <TextInput
        label="Template name"
        required
        value={name}
        error={error}
        onChange={(event) => setName(event.currentTarget.value)}
        data-autofocus
      />
      <DialogActions onCancel={onClose}>
        <Button type="submit" loading={save.isPending}>
          Save
        </Button>
      </DialogActions>
    </FormStack>
  );
};

const Waiting = ({ test }: { test: TSpamTestResult }) => (
  <Paper withBorder p="xl" radius="md">
    <Stack align="center" ta="center">
      <Loader aria-hidden />
      <Text role="status">{SPAM_TEST_MESSAGES.waiting}</Text>
      <Text size="sm" c="dimmed">
        {test.status === 'received'
          ? 'The email has arrived and is being scored.'
          : `Waiting for the email at ${test.address}. This page updates by itself.`}
      </Text>
    </Stack>
  </Paper>
);

/** One spam test's result (`/tools/mail-testing/history/result/{id}`): the score, the findings, the message as it arrived. */
export const SpamTestResultPage = () => {
  const { id } = useParams();
  useSpamTestEvents();
  const result = useSpamTestResult(Number(id) || null);
  const formatDateTime = useFormatDateTime();
  const [isSaving, setIsSaving] = useState(false);
  const test = result.data;

  return (
    <>
      <PageHeader
        title="Spam Test Result"
        description={test ? `“${test.subject}”` : undefined}
        actions={
          <>
            <Button
              component={Link}
              to="/tools/mail-testing/history"
              variant="default"
              leftSection={<IconArrowLeft size={16} aria-hidden />}
            >
              Test history
            </Button>
            <Button component={Link} to="/tools/mail-testing" leftSection={<IconFlame size={16} aria-hidden />}>
              New test
            </Button>
          </>
        }
      />
      <QueryStatus query={result} label="Loading" failed="This spam test could not be loaded" py="xl" />
      {test && (
        <Stack gap="lg">
          {(test.status === 'waiting' || test.status === 'received') && <Waiting test={test} />}
          {test.status === 'failed' && (
            <Alert color="red" title="The test email did not arrive">
              {test.error} {test.credits_refunded > 0 && `${test.credits_refunded} credits were given back.`}
            </Alert>
          )}
          {test.status === 'scored' && test.score !== null && (
            <Paper withBorder p="lg" radius="md">
              <Group align="center" gap="xl" wrap="wrap">
                <ScoreGauge score={test.score} />
                <Stack gap="sm" style={{ flex: 1, minWidth: 260 }}>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <Fact label="From" value={test.from} />
                    <Fact label="Account" value={test.account_name ?? '—'} />
                    <Fact label="Sent" value={formatDateTime(test.created_at)} />
                    <Fact label="Scored" value={test.scored_at ? formatDateTime(test.scored_at) : '—'} />
                  </SimpleGrid>
                  <Group gap="xs">
                    {test.report?.engines.map((engine) => (
                      <Badge key={engine.name} variant="light" color={engine.status === 'scored' ? 'green' : 'orange'}>
                        {engine.name}: {ENGINE_STATUS_LABELS[engine.status]}
                      </Badge>
                    ))}
                    <Badge variant="light" color="green">
                      Sendwell checks: scored
                    </Badge>
                  </Group>
                  <Group gap="xs">
                    <Button
                      variant="default"
                      size="xs"
                      leftSection={<IconDeviceFloppy size={14} aria-hidden />}
                      onClick={() => setIsSaving(true)}
                    >
                      Save as template
                    </Button>
                    <Button
                      component="a"
                      href={rawUrl(test.id)}
                      variant="default"
                      size="xs"
                      leftSection={<IconDownload size={14} aria-hidden />}
                    >
                      Download the message (.eml)
                    </Button>
                  </Group>
                </Stack>
              </Group>
            </Paper>
          )}
          <Tabs defaultValue={test.report ? 'report' : 'message'} keepMounted={false}>
            <Tabs.List>
              {test.report && <Tabs.Tab value="report">What counted</Tabs.Tab>}
              <Tabs.Tab value="message">Message</Tabs.Tab>
              {test.headers && <Tabs.Tab value="headers">Headers as received</Tabs.Tab>}
            </Tabs.List>
            {test.report && (
              <Tabs.Panel value="report" pt="md">
                <SpamReport report={test.report} />
              </Tabs.Panel>
            )}
            <Tabs.Panel value="message" pt="md">
              <Paper withBorder radius="md" p="xs">
                <iframe
                  title="The tested message"
                  sandbox=""
                  srcDoc={previewDocument(test.html)}
                  style={{ width: '100%', height: 560, border: 0, background: 'white' }}
                />
              </Paper>
            </Tabs.Panel>
            {test.headers && (
              <Tabs.Panel value="headers" pt="md">
                <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {test.headers}
                </Code>
              </Tabs.Panel>
            )}
          </Tabs>
          <Text size="sm" c="dimmed">
            Sent to <Code>{test.address}</Code>. {test.credits_charged} credits
            {test.credits_refunded > 0 ? `, ${test.credits_refunded} given back` : ''}.
          </Text>
        </Stack>
      )}
      <Modal opened={isSaving && Boolean(test)} onClose={() => setIsSaving(false)} title="Save as template">
        {test && <SaveAsTemplate test={test} onClose={() => setIsSaving(false)} />}
      </Modal>
    </>
  );
};
