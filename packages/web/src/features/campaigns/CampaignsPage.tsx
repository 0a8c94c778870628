import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  Collapse,
  Group,
  Modal,
  Paper,
  Stack,
  Switch,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CAMPAIGN_MESSAGES, type TCampaignRow } from '@sendwell/contracts';
import {
  IconChevronDown,
  IconChevronRight,
  IconPlayerPause,
  IconPlayerPlay,
  IconPlus,
  IconTrash,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { LineChart } from '../../components/LineChart';
import { PageHeader } from '../../components/PageHeader';
import { STATUS_LOOK } from './campaign-status';
import {
  CAMPAIGNS_URL,
  campaignKeys,
  useCampaignMutation,
  useDrafts,
  useListStatistics,
  useSetCampaignStatus,
} from './campaigns.queries';

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

/** Asks before deleting campaigns, naming them. */
const DeleteCampaignsModal = ({
  campaigns,
  onClose,
  onDeleted,
}: {
  campaigns: { id: number; title: string }[] | null;
  onClose: () => void;
  onDeleted?: () => void;
}) => {
  const remove = useCampaignMutation('deleteCampaigns');
  const count = campaigns?.length ?? 0;
  return (
    <Modal
      opened={campaigns !== null}
      onClose={onClose}
      title={count === 1 ? 'Delete this campaign?' : `Delete ${count} campaigns?`}
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Stack>
        <Text size="sm">
          {count === 1 ? `“${campaigns?.[0]?.title}”` : 'They'} and {count === 1 ? 'its' : 'their'} recipients are
          deleted. Emails already handed to your sending account still go out.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
          <Button
            color="red.9"
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { body: { ids: (campaigns ?? []).map((campaign) => campaign.id) } },
                {
                  onSuccess: ({ message }) => {
                    notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
                    onDeleted?.();
                    onClose();
                  },
                  onError: showError,
                },
              )
            }
          >
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
};

/** The unsaved campaigns (spec: a collapsible group, each resumed at its furthest step, or deleted). */
const Drafts = () => {
  const drafts = useDrafts();
  const [isOpen, setIsOpen] = useState(true);
  const [deleting, setDeleting] = useState<TCampaignRow | null>(null);
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
            <Group key={draft.id} justify="space-between" wrap="nowrap" gap="xs">
              <Anchor component={Link} to={`/campaigns/continue/${draft.id}`}>
                {draft.title}
              </Anchor>
              <Group gap="xs" wrap="nowrap">
                <Text size="sm" c="dimmed">
                  step {draft.step} of 6 · {formatDateTime(draft.created_at)}
                </Text>
                <ActionIcon
                  variant="subtle"
                  color="red.9"
                  aria-label={`Delete ${draft.title}`}
                  onClick={() => setDeleting(draft)}
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
            </Group>
          ))}
        </Stack>
      </Collapse>
      <DeleteCampaignsModal campaigns={deleting ? [deleting] : null} onClose={() => setDeleting(null)} />
    </Paper>
  );
};

/** Start, stop or delete the campaigns ticked in the list (spec: select-all and per-row checkboxes). */
const BulkActions = ({ selected, clearSelection }: { selected: TCampaignRow[]; clearSelection: () => void }) => {
  const queryClient = useQueryClient();
  const setStatus = useSetCampaignStatus();
  const [isBusy, setIsBusy] = useState(false);
  const [deleting, setDeleting] = useState<TCampaignRow[] | null>(null);
  const changeAll = async (running: boolean) => {
    // A finished campaign has nobody left: starting or stopping it changes nothing.
    const targets = selected.filter((campaign) => campaign.status !== 'finished' && campaign.running !== running);
    setIsBusy(true);
    try {
      for (const campaign of targets) await setStatus.mutateAsync({ id: campaign.id, status: running });
      notifications.show({
        color: 'green',
        title: 'Success!',
        message: `${targets.length} campaign${targets.length === 1 ? '' : 's'} ${running ? 'started' : 'stopped'}.`,
        position: 'top-center',
      });
      clearSelection();
    } catch (error) {
      showError(error);
    } finally {
      setIsBusy(false);
      void queryClient.invalidateQueries({ queryKey: campaignKeys.list });
    }
  };
  const isEmpty = selected.length === 0;
  return (
    <Group gap="xs">
      <Text size="sm" c="dimmed" aria-live="polite">
        {isEmpty ? 'Tick campaigns to act on them.' : `${selected.length} selected`}
      </Text>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconPlayerPlay size={14} aria-hidden />}
        disabled={isEmpty}
        loading={isBusy}
        onClick={() => void changeAll(true)}
      >
        Start
      </Button>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconPlayerPause size={14} aria-hidden />}
        disabled={isEmpty}
        loading={isBusy}
        onClick={() => void changeAll(false)}
      >
        Stop
      </Button>
      <Button
        size="xs"
        color="red.9"
        leftSection={<IconTrash size={14} aria-hidden />}
        disabled={isEmpty}
        onClick={() => setDeleting(selected)}
      >
        Delete
      </Button>
      <DeleteCampaignsModal campaigns={deleting} onClose={() => setDeleting(null)} onDeleted={clearSelection} />
    </Group>
  );
};

/** Campaigns (spec §2 campaign list, the Drip Campaigns page): the last 30 days, unsaved campaigns, and the saved ones. */
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
      <DataTableCard<TCampaignRow>
        label="Campaigns"
        queryKey={campaignKeys.list}
        url={CAMPAIGNS_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        defaultPerPage={20}
        searchDebounceMs={600}
        selectable
        toolbar={({ selectedIds, clearSelection, response }) => (
          <BulkActions
            selected={(response?.data ?? []).filter((campaign) => selectedIds.includes(campaign.id))}
            clearSelection={clearSelection}
          />
        )}
        emptyText={
          <Stack align="center" gap="xs" py="lg">
            <Text>{CAMPAIGN_MESSAGES.empty}</Text>
            <Anchor component={Link} to="/campaigns/new">
              New Campaign
            </Anchor>
          </Stack>
        }
      />
    </>
  );
};
