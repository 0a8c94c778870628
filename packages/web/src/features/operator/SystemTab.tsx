import { Alert, Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useFormatDateTime } from '../../app/dates';
import { QueryStatus } from '../../components/QueryStatus';
import { TableScroller } from '../../components/TableScroller';
import { useBillingOptions } from '../billing/billing.queries';
import { useSystemStatus } from './operator.queries';

const Stat = ({ label, value }: { label: string; value: React.ReactNode }) => (
  <Card withBorder>
    <Text size="sm" c="dimmed">
      {label}
    </Text>
    <Text fw={700} size="xl">
      {value}
    </Text>
  </Card>
);

/** Who asks the resolver, as the broken resolver's title names them. */
const RESOLVER_USERS = { verification: 'email verification', 'pre-send': 'the pre-send check' } as const;

/** Queue depth, live workers, last failures and the test inbox, refreshed every 5 seconds. */
export const SystemTab = () => {
  const formatDateTime = useFormatDateTime();
  const status = useSystemStatus();
  const billing = useBillingOptions();
  if (status.isPending || status.isError) {
    return (
      <QueryStatus query={status} label="Loading the system status" failed="The system status could not be loaded." />
    );
  }
  const { queues, workers, errors, testInbox, database, verificationProbe: probe, resolvers } = status.data;
  const waiting = queues.reduce((sum, queue) => sum + queue.queued, 0);
  return (
    <Stack>
      {billing.data && !billing.data.stripePublishableKey && (
        <Alert color="blue" title="Payments are not set up" data-testid="payments-off">
          <Text size="sm">
            Without <code>STRIPE_SECRET_KEY</code> and <code>STRIPE_PUBLISHABLE_KEY</code> customers cannot buy a paid
            plan or credits; their Subscription page asks them to contact you. Move a user to a plan and grant credits
            on the Users tab, or with <code>npm run admin -- set-plan EMAIL PLAN_ID</code> and{' '}
            <code>npm run admin -- grant-credits EMAIL QUANTITY</code>.
          </Text>
        </Alert>
      )}
      {probe.blockedSince && (
        <Alert
          color="orange"
          title={`Email verification cannot reach mail servers on port ${probe.port}`}
          data-testid="probe-blocked"
        >
          <Text size="sm">
            Since {formatDateTime(probe.blockedSince)}, no mail server of {probe.unreachableDomains} domains answered
            the verification probe, so their addresses come back unknown (and are refunded), never invalid. Outbound
            port {probe.port} is most likely blocked by this machine's provider: ask them to open it, or run the workers
            somewhere it is open.
            {probe.lastReachedAt && ` A server was last reached on ${formatDateTime(probe.lastReachedAt)}.`}
          </Text>
          {probe.detail && (
            <Text size="xs" c="dimmed" mt={4}>
              Last failure: {probe.detail}
            </Text>
          )}
        </Alert>
      )}
      {resolvers
        .filter((resolver) => resolver.brokenSince !== null)
        .map((resolver) => (
          <Alert
            key={resolver.source}
            color="red"
            title={`The DNS resolver ${RESOLVER_USERS[resolver.source]} asks is broken`}
            data-testid={`resolver-broken-${resolver.source}`}
          >
            <Text size="sm">
              Since {formatDateTime(resolver.brokenSince!)}, the resolver ({resolver.servers || "the system's"}) does
              not find names that must exist, so its "no such domain" answers are not believed:{' '}
              {resolver.source === 'verification'
                ? 'addresses that depend on DNS come back unknown and their credits are refunded.'
                : 'the pre-send check says the sending domain could not be checked.'}{' '}
              Check the resolver (
              <code>{resolver.source === 'verification' ? 'VERIFY_DNS_SERVERS' : 'SPAM_TEST_DNS_SERVERS'}</code>, else{' '}
              <code>/etc/resolv.conf</code>) from the machine that runs {RESOLVER_USERS[resolver.source]}.
              {resolver.lastOkAt && ` It last answered correctly on ${formatDateTime(resolver.lastOkAt)}.`}
            </Text>
            {resolver.detail && (
              <Text size="xs" c="dimmed" mt={4}>
                {resolver.detail}
              </Text>
            )}
          </Alert>
        ))}
      <SimpleGrid cols={{ base: 1, sm: 4 }}>
        <Stat label="Workers alive" value={workers.alive} />
        <Stat label="Jobs waiting" value={waiting.toLocaleString('en-US')} />
        <Stat
          label="Test inbox"
          value={
            testInbox ? (
              <Badge color="green" variant="light">
                On
              </Badge>
            ) : (
              <Badge color="gray" variant="light">
                Off
              </Badge>
            )
          }
        />
        <Stat label="Database size" value={`${(database.size_bytes / 1024 / 1024).toFixed(1)} MB`} />
      </SimpleGrid>
      <Title order={3} size="h5">
        Queues
      </Title>
      <TableScroller label="Queues">
        <Table striped aria-label="Queues">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Queue</Table.Th>
              <Table.Th ta="right">Waiting</Table.Th>
              <Table.Th ta="right">Running</Table.Th>
              <Table.Th ta="right">Failed</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {queues.map((queue) => (
              <Table.Tr key={queue.name}>
                {/* A queue name is one word: kept on one line (the table scrolls on a phone). */}
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{queue.name}</Table.Td>
                <Table.Td ta="right">{queue.queued}</Table.Td>
                <Table.Td ta="right">{queue.active}</Table.Td>
                <Table.Td ta="right">{queue.failed}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      <Title order={3} size="h5">
        Last errors
      </Title>
      {errors.length === 0 ? (
        <Text c="dimmed">No failed jobs.</Text>
      ) : (
        <Stack gap="xs">
          {errors.map((error) => (
            <Group key={`${error.failed_at}-${error.queue}-${error.message}`} gap="sm" wrap="nowrap" align="flex-start">
              <Text size="sm" c="dimmed" miw={170}>
                {error.failed_at ? formatDateTime(error.failed_at) : '—'}
              </Text>
              <Text size="sm" fw={600} miw={160}>
                {error.queue}
              </Text>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {error.message}
              </Text>
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
};
