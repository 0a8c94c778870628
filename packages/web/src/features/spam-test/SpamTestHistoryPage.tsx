import { Anchor, Badge, Button, Text } from '@mantine/core';
import { formatSpamScore, type TSpamTest } from '@sendwell/contracts';
import { IconFlame } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { scoreColor } from './ScoreGauge';
import { resultPath, SPAM_TEST_HISTORY_URL, spamTestKeys, useSpamTestEvents } from './spam-test.queries';

const STATUS_LABELS: Record<TSpamTest['status'], string> = {
  waiting: 'Waiting for the email',
  received: 'Scoring',
  scored: 'Scored',
  failed: 'Did not arrive (refunded)',
};

/** Spam test history (`/tools/mail-testing/history`): every test, its score, live while one is running. */
export const SpamTestHistoryPage = () => {
  const formatDateTime = useFormatDateTime();
  useSpamTestEvents();
  const columns: TDataTableColumn<TSpamTest>[] = [
    {
      key: 'subject',
      title: 'Subject',
      render: (test) => (
        <Anchor component={Link} to={resultPath(test.id)} size="sm">
          {test.subject}
        </Anchor>
      ),
    },
    { key: 'from', title: 'From' },
    { key: 'account_name', title: 'Account', render: (test) => test.account_name ?? '—' },
    {
      key: 'score',
      title: 'Score',
      sortable: true,
      render: (test) =>
        test.score === null ? (
          '—'
        ) : (
          <Text fw={700} size="sm" style={{ color: scoreColor(test.score) }}>
            {formatSpamScore(test.score)} / 10
          </Text>
        ),
    },
    {
      key: 'status',
      title: 'Status',
      render: (test) => (
        <Badge variant="light" color={test.status === 'scored' ? 'green' : test.status === 'failed' ? 'red' : 'blue'}>
          {STATUS_LABELS[test.status]}
        </Badge>
      ),
    },
    { key: 'created_at', title: 'Sent', sortable: true, render: (test) => formatDateTime(test.created_at) },
  ];
  return (
    <>
      <PageHeader
        title="Spam Test History"
        description="Each test you ran, with its score out of 10."
        actions={
          <Button component={Link} to="/tools/mail-testing" leftSection={<IconFlame size={16} aria-hidden />}>
            New test
          </Button>
        }
      />
      <DataTableCard<TSpamTest>
        label="Spam test history"
        queryKey={spamTestKeys.history}
        url={SPAM_TEST_HISTORY_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        searchable={false}
        emptyText={
          <Text c="dimmed" ta="center" py="lg">
            No spam tests yet.{' '}
            <Anchor component={Link} to="/tools/mail-testing">
              Test an email
            </Anchor>{' '}
            to see how receivers will take it.
          </Text>
        }
      />
    </>
  );
};
