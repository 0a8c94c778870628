import { Anchor, Badge, Button, Group, NativeSelect, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CAMPAIGN_MESSAGES, RECIPIENT_FILTERS, type TCampaignMember } from '@sendwell/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { campaignKeys, membersUrl, useCampaignMutation } from './campaigns.queries';
import { RecipientHistory } from './RecipientHistory';

/** Where a recipient stands: stopped (and why), done, or its next email. */
const StateCell = ({ member }: { member: TCampaignMember }) =>
  member.state === 'stopped' ? (
    <Badge variant="light" color="red">
      stopped: {member.stop_reason}
    </Badge>
  ) : member.state === 'done' ? (
    <Badge variant="light" color="teal">
      done
    </Badge>
  ) : (
    <Text size="sm">next: email {member.next_position}</Text>
  );

/**
 * The Recipients tab (spec §2): a start/stop toggle per recipient, email, name, state, added
 * on and the custom variables; rows expand to their history; search, sort, filters, paging
 * and bulk delete.
 */
export const RecipientsTab = ({ id, variables }: { id: number; variables: string[] }) => {
  const formatDateTime = useFormatDateTime();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const setStatus = useCampaignMutation('recipientStatus');
  const remove = useCampaignMutation('deleteRecipients');
  const custom = variables.filter((name) => name !== 'email' && name !== 'name');
  const columns: TDataTableColumn<TCampaignMember>[] = [
    {
      key: 'status',
      title: 'Running',
      render: (member) => (
        <Switch
          aria-label={`${member.status ? 'Pause' : 'Resume'} ${member.email}`}
          checked={member.status}
          disabled={member.state !== 'active'}
          onChange={(event) =>
            setStatus.mutate(
              { id, body: { emailId: member.id, status: event.currentTarget.checked } },
              {
                onSuccess: () => void queryClient.invalidateQueries({ queryKey: campaignKeys.members(id) }),
                onError: showError,
              },
            )
          }
        />
      ),
    },
    { key: 'email', title: 'Email', sortable: true },
    { key: 'name', title: 'Name' },
    { key: 'state', title: 'State', render: (member) => <StateCell member={member} /> },
    { key: 'created_at', title: 'Added on', sortable: true, render: (member) => formatDateTime(member.created_at) },
    ...custom.map((name) => ({
      key: `var-${name}`,
      title: name,
      render: (member: TCampaignMember) =>
        member.variables.find((variable) => variable.field_key === name)?.field_value ?? '',
    })),
  ];
  return (
    <DataTable<TCampaignMember>
      label="Recipients of the campaign"
      queryKey={campaignKeys.members(id)}
      url={membersUrl(id)}
      columns={columns}
      defaultSort={{ column: 'email', order: 'asc' }}
      defaultPerPage={20}
      filters={{ filter }}
      selectable
      renderExpanded={(member) => <RecipientHistory recipient={member} />}
      toolbar={({ selectedIds, clearSelection }) => (
        <Group gap="xs" align="flex-end">
          <NativeSelect
            size="xs"
            label="Show"
            value={filter}
            onChange={(event) => setFilter(event.currentTarget.value)}
            data={[{ value: '', label: 'All' }, ...RECIPIENT_FILTERS.map((value) => ({ value, label: value }))]}
          />
          <Anchor component={Link} to={`/drip-campaign/campaign/${id}/members`} size="sm" pb={4}>
            Members list
          </Anchor>
          <Button
            size="xs"
            color="red.9"
            leftSection={<IconTrash size={14} aria-hidden />}
            disabled={selectedIds.length === 0}
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { id, body: { recipients: selectedIds.map(Number) } },
                {
                  onSuccess: ({ message }) => {
                    notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
                    clearSelection();
                  },
                  onError: () => showError(new Error(CAMPAIGN_MESSAGES.removeFailed)),
                },
              )
            }
          >
            Delete selected
          </Button>
        </Group>
      )}
    />
  );
};
