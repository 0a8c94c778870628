import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Loader,
  Pagination,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import {
  type TWebhookDelivery,
  type TWebhookEndpoint,
  type TWebhookEventType,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RETRY_HOURS,
  ZSaveWebhookRequest,
} from '@sendwell/contracts';
import { IconPlus, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { SettingsForm } from '../../components/SettingsSection';
import { TableScroller } from '../../components/TableScroller';
import {
  useCreateWebhook,
  useDeleteWebhook,
  useRevealSecret,
  useTestWebhook,
  useToggleWebhook,
  useWebhookDeliveries,
  useWebhooks,
} from './integrations.queries';
import { SecretOnce } from './SecretOnce';

const EventChoices = ({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (events: TWebhookEventType[]) => void;
  error?: string | undefined;
}) => (
  <Checkbox.Group
    label="Events"
    value={value}
    onChange={(events) => onChange(events as TWebhookEventType[])}
    error={error}
  >
    <SimpleGrid cols={{ base: 1, md: 2 }} mt="xs" spacing="xs">
      {WEBHOOK_EVENT_TYPES.map((type) => (
        <Checkbox key={type} value={type} label={<Code>{type}</Code>} description={WEBHOOK_EVENT_DESCRIPTIONS[type]} />
      ))}
    </SimpleGrid>
  </Checkbox.Group>
);

/** The form for a new webhook, and above it the signing secret it made. */
const CreateWebhookForm = () => {
  const create = useCreateWebhook();
  const [created, setCreated] = useState<string | null>(null);
  const form = useZodForm(ZSaveWebhookRequest, {
    initialValues: { url: '', description: '', events: ['member.subscribed', 'member.unsubscribed'] },
    onSubmit: (request, { fail }) =>
      create.mutate(request, {
        onSuccess: ({ secret }) => {
          setCreated(secret);
          form.setValue('url', '');
          form.setValue('description', '');
        },
        onError: fail,
      }),
  });
  return (
    <>
      {created && (
        <SecretOnce
          title="Your webhook's signing secret"
          value={created}
          note="Check each delivery's Sendwell-Signature header with it. You can show it again on the webhook."
          onDone={() => setCreated(null)}
          testId="new-webhook-secret"
        />
      )}
      <SettingsForm
        title="New webhook"
        onSubmit={form.onSubmit}
        submitLabel="Add webhook"
        isPending={create.isPending}
        submitIcon={<IconPlus size={16} />}
      >
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="URL" placeholder="https://example.com/hooks/sendwell" {...form.inputProps('url')} />
          <TextInput label="Description (optional)" {...form.inputProps('description')} />
        </SimpleGrid>
        <EventChoices
          value={form.values.events as string[]}
          onChange={(events) => form.setValue('events', events)}
          error={form.errors.events}
        />
      </SettingsForm>
    </>
  );
};

const STATUS_COLOR = { pending: 'yellow', delivered: 'green', failed: 'red' } as const;

const lastAnswer = (delivery: TWebhookDelivery) => {
  const attempt = delivery.attempts.at(-1);
  if (!attempt) return 'Not tried yet';
  return attempt.status_code === null ? attempt.response : `${attempt.status_code} ${attempt.response}`.trim();
};

/** The log of one endpoint: its deliveries, newest first, each with its attempts and the last answer. */
const DeliveryLog = ({ endpoint }: { endpoint: TWebhookEndpoint }) => {
  const [page, setPage] = useState(1);
  const deliveries = useWebhookDeliveries(endpoint.id, page);
  const formatDateTime = useFormatDateTime();
  if (deliveries.isPending) return <Loader size="sm" aria-label="Loading the log" />;
  if (deliveries.isError) {
    return <LoadFailedAlert title="The log could not be loaded." onRetry={() => void deliveries.refetch()} />;
  }
  const { data, meta } = deliveries.data;
  if (data.length === 0)
    return (
      <Text c="dimmed" size="sm">
        Nothing sent yet.
      </Text>
    );
  return (
    <Stack gap="xs">
      <TableScroller label={`Deliveries to ${endpoint.url}`}>
        <Table aria-label={`Deliveries to ${endpoint.url}`} miw={680} data-testid="webhook-log">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last answer</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map((delivery) => (
              <Table.Tr key={delivery.id} data-testid="webhook-delivery">
                <Table.Td>
                  <Code>{delivery.type}</Code>
                </Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLOR[delivery.status]} variant="light">
                    {delivery.status}
                  </Badge>
                  {delivery.next_attempt_at && delivery.attempts.length > 0 && (
                    <Text size="xs" c="dimmed">
                      Next try {formatDateTime(delivery.next_attempt_at)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{delivery.attempts.length}</Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2} style={{ wordBreak: 'break-word' }}>
                    {lastAnswer(delivery)}
                  </Text>
                </Table.Td>
                <Table.Td>{formatDateTime(delivery.created_at)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      {meta.last_page > 1 && (
        <Pagination
          total={meta.last_page}
          value={page}
          onChange={setPage}
          size="sm"
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
        />
      )}
    </Stack>
  );
};

const EndpointCard = ({ endpoint }: { endpoint: TWebhookEndpoint }) => {
  const test = useTestWebhook();
  const toggle = useToggleWebhook();
  const remove = useDeleteWebhook();
  const reveal = useRevealSecret();
  const [secret, setSecret] = useState<string | null>(null);
  const [isLogOpen, setLogOpen] = useState(false);
  const headingId = `webhook-${endpoint.id}`;
  const confirmDelete = () =>
    modals.openConfirmModal({
      title: 'Delete this webhook?',
      children: <Text size="sm">Nothing more is sent to {endpoint.url}, and its log goes with it.</Text>,
      labels: { confirm: 'Delete webhook', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate(endpoint.id, { onSuccess: ({ message }) => showSuccess(message) }),
    });
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={headingId} data-testid="webhook-card">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap">
          <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
            <Title order={3} fz="md" id={headingId} style={{ wordBreak: 'break-all' }}>
              {endpoint.url}
            </Title>
            {endpoint.description && (
              <Text size="sm" c="dimmed">
                {endpoint.description}
              </Text>
            )}
          </Stack>
          <Switch
            label="Enabled"
            checked={endpoint.is_enabled}
            onChange={() => toggle.mutate(endpoint)}
            disabled={toggle.isPending}
          />
        </Group>
        <Group gap={4}>
          {endpoint.events.map((type) => (
            <Badge key={type} variant="light" tt="none">
              {type}
            </Badge>
          ))}
        </Group>
        {endpoint.pending > 0 && (
          <Text size="sm">
            {endpoint.pending} {endpoint.pending === 1 ? 'delivery is' : 'deliveries are'} waiting or being retried.
          </Text>
        )}
        {secret && (
          <SecretOnce
            title="Signing secret"
            value={secret}
            note="Check each delivery's Sendwell-Signature header with it (HMAC-SHA256 over the timestamp and the body)."
            onDone={() => setSecret(null)}
            testId="webhook-secret-value"
          />
        )}
        <Group gap="xs">
          <Button
            size="xs"
            leftSection={<IconSend size={14} />}
            loading={test.isPending}
            onClick={() =>
              test.mutate(endpoint.id, {
                onSuccess: ({ status, message }) =>
                  notifications.show({
                    color: status ? 'green' : 'red',
                    title: status ? 'Test event delivered' : 'Test event not delivered',
                    message,
                    position: 'top-center',
                  }),
              })
            }
          >
            Send a test event
          </Button>
          <Button
            size="xs"
            variant="light"
            loading={reveal.isPending}
            onClick={() => reveal.mutate(endpoint.id, { onSuccess: (answer) => setSecret(answer.secret) })}
          >
            Show signing secret
          </Button>
          <Button
            size="xs"
            variant="light"
            aria-expanded={isLogOpen}
            aria-controls={`${headingId}-log`}
            onClick={() => setLogOpen((open) => !open)}
          >
            {isLogOpen ? 'Hide log' : 'Show log'}
          </Button>
          <Button size="xs" color="red" variant="subtle" onClick={confirmDelete}>
            Delete
          </Button>
        </Group>
        <div id={`${headingId}-log`}>{isLogOpen && <DeliveryLog endpoint={endpoint} />}</div>
      </Stack>
    </Paper>
  );
};

/** Settings → Webhooks (issue 48 §3): URLs told of events, signed and retried, each with its log. */
export const WebhooksPage = () => {
  const webhooks = useWebhooks();
  return (
    <Stack>
      <PageHeader
        title="Webhooks"
        description={
          <>
            Sendwell POSTs each event as JSON to your URLs, signed in the <Code>Sendwell-Signature</Code> header, and
            tries again with growing pauses for {WEBHOOK_RETRY_HOURS} hours until your server answers 2xx. A member’s
            events arrive in the order they happened. See <Anchor href="/api/docs">the API document</Anchor> for the
            calls, and the README for each event’s fields.
          </>
        }
      />
      <CreateWebhookForm />
      <Title order={2} fz="lg">
        Your webhooks
      </Title>
      {webhooks.isPending || webhooks.isError ? (
        <QueryStatus query={webhooks} label="Loading webhooks" failed="Your webhooks could not be loaded." />
      ) : webhooks.data.length === 0 ? (
        <Text c="dimmed">No webhooks yet.</Text>
      ) : (
        webhooks.data.map((endpoint) => <EndpointCard key={endpoint.id} endpoint={endpoint} />)
      )}
    </Stack>
  );
};
