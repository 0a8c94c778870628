import {
  Anchor,
  Badge,
  Button,
  Card,
  Collapse,
  Group,
  Paper,
  Stack,
  Switch,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CAMPAIGN_MESSAGES, type TCampaignRow } from '@sendwell/contracts';
import { IconChevronDown, IconChevronRight, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { LineChart } from '../../components/LineChart';
import { PageHeader } from '../../components/PageHeader';
import { CAMPAIGNS_URL, campaignKeys, useDrafts, useListStatistics, useSetCampaignStatus } from './campaigns.queries';

export const STATUS_LOOK: Record<TCampaignRow['status'], { label: string; color: string }> = {
  running: { label: 'Running', color: 'green' },
  paused: { label: 'Paused', color: 'gray' },
  scheduled: { label: 'Scheduled', color: 'blue' },
  finished: { label: 'Finished', color: 'teal' },
  draft: { label: 'Unsaved', color: 'orange' },
};

const RunningSwitch = ({ campaign }: { campaign: TCampaignRow }) => {
  const setStatus = useSetCampaignStatus();
  return (
    <Switch
      aria-label={`${campaign.running ? 'Stop' : 'Start'} ${campaign.title}`}
      checked={campaign.running}
      disabled={setStatus.isPending || campaign.status === 'finished'}
      onChange={(event) =>
        setStatus.mutate(
          { id: campaign.id, status: event.currentTarget.checked },
          {
            onSuccess: ({ message }) =>
              notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' }),
            onError: showError,
          },
        )
      }
    />
  );
};

/** The unsaved campaigns (spec: a collapsible group, each resumed at its furthest step). */
const Drafts = () => {
  const drafts = useDrafts();
  const [isOpen, setIsOpen] = useState(true);
  const formatDateTime = useFormatDateTime();
  const rows = drafts.data?.data ?? [];
  if (rows.length === 0) return null;
  return (
    <Paper withBorder p="md" radius="md" mb="md">
      <UnstyledButton onClick={() => setIsOpen(!isOpen)} aria-expanded={isOpen} aria-controls="unsaved-campaigns">
        <Group gap="xs">
          {isOpen ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
          <Title order={2} fz="md">
            Unsaved Campaigns ({rows.length})
          </Title>
        </Group>
      </UnstyledButton>
      <Collapse expanded={isOpen} transitionDuration={800} id="unsaved-campaigns">
        <Stack gap={4} mt="sm">
          {rows.map((draft) => (
            <Group key={draft.id} justify="space-between">
              <Anchor component={Link} to={`/campaigns/continue/${draft.id}`}>
                {draft.title}
              </Anchor>
              <Text size="sm" c="dimmed">
                step {draft.step} of 6 · {formatDateTime(draft.created_at)}
              </Text>
            </Group>
          ))}
        </Stack>
      </Collapse>
    </Paper>
  );
};

/** Drip campaigns (spec §2 campaign list): the last 30 days, unsaved campaigns, and the saved ones. */
export const CampaignsPage = () => {
  const statistics = useListStatistics();
  const formatDateTime = useFormatDateTime();
  const columns: TDataTableColumn<TCampaignRow>[] = [
    {
      key: 'status',
      title: 'Status',
      render: (campaign) => (
        <Group gap="xs" wrap="nowrap">
          <RunningSwitch campaign={campaign} />
          <Badge variant="light" color={STATUS_LOOK[campaign.status].color}>
            {STATUS_LOOK[campaign.status].label}
          </Badge>
        </Group>
      ),
    },
    {
      key: 'title',
      title: 'Title',
      sortable: true,
      render: (campaign) => (
        <Anchor component={Link} to={`/campaigns/detail/${campaign.id}`}>
          {campaign.title}
        </Anchor>
      ),
    },
    { key: 'created_at', title: 'Created', sortable: true, render: (campaign) => formatDateTime(campaign.created_at) },
    { key: 'account_name', title: 'Assigned', render: (campaign) => campaign.account_name ?? '—' },
    { key: 'members_count', title: 'Recipients', align: 'right' },
    { key: 'sent_count', title: 'Sent', align: 'right' },
    { key: 'opened_count', title: 'Opens', align: 'right' },
    { key: 'bounced_count', title: 'Bounces', align: 'right' },
  ];
  return (
    <>
      <PageHeader
        title="Drip Campaigns"
        description="Sequences of emails that go out on their own, each after the one before it."
        actions={
          <Button component={Link} to="/campaigns/new" leftSection={<IconPlus size={16} aria-hidden />}>
            New Campaign
          </Button>
        }
      />
      {statistics.data && (
        <Card withBorder mb="md">
          <Title order={2} fz="md" mb="xs">
            Last 30 Days
          </Title>
          <LineChart
            title="Campaign emails per day over the last 30 days"
            days={statistics.data.days}
            series={[
              { label: 'Sent', color: 'var(--mantine-color-blue-7)', values: statistics.data.sent },
              { label: 'Delivered', color: 'var(--mantine-color-green-8)', values: statistics.data.delivered },
              { label: 'Opened', color: 'var(--mantine-color-grape-7)', values: statistics.data.opened },
              { label: 'Clicked', color: 'var(--mantine-color-orange-8)', values: statistics.data.clicked },
            ]}
          />
        </Card>
      )}
      <Drafts />
      <Paper withBorder p="md">
        <DataTable<TCampaignRow>
          label="Campaigns"
          queryKey={campaignKeys.list}
          url={CAMPAIGNS_URL}
          columns={columns}
          rowKey={(campaign) => campaign.id}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          defaultPerPage={20}
          searchDebounceMs={600}
          emptyText={
            <Stack align="center" gap="xs" py="lg">
              <Text>{CAMPAIGN_MESSAGES.empty}</Text>
              <Anchor component={Link} to="/campaigns/new">
                New Campaign
              </Anchor>
            </Stack>
          }
        />
      </Paper>
    </>
  );
};
