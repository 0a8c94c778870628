import { Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { campaignsApi, MEMBERS_LIST_PER_PAGE, type TCampaignMemberRow } from '@sendwell/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { campaignKeys, membersListUrl, useCampaignGeneral } from './campaigns.queries';

/**
 * The spec's members-list variant of a campaign's recipients (§2, §7): name and address, 2 a
 * page to begin with, each deleted after a confirmation ('Your member successfully deleted on
 * list!', then the list again; a failure is the 'Error!' dialog).
 */
export const MembersListPage = () => {
  const id = Number(useParams().id);
  const campaign = useCampaignGeneral(id);
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<TCampaignMemberRow | null>(null);
  const remove = useMutation({
    mutationFn: (member: TCampaignMemberRow) =>
      callRoute(campaignsApi.deleteMember, { params: { id, memberId: member.id } }),
    onSuccess: ({ message }) => {
      notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
      setDeleting(null);
      void queryClient.invalidateQueries({ queryKey: campaignKeys.campaign(id) });
    },
    onError: (error) => {
      setDeleting(null);
      showError(error);
    },
    meta: { reportErrors: false },
  });
  const columns: TDataTableColumn<TCampaignMemberRow>[] = [
    { key: 'fullname', title: 'Name' },
    { key: 'email', title: 'Email', sortable: true },
    {
      key: 'actions',
      title: 'Actions',
      isCompact: true,
      render: (member) => (
        <Button
          size="compact-xs"
          variant="default"
          leftSection={<IconTrash size={14} aria-hidden />}
          aria-label={`Delete ${member.email}`}
          onClick={() => setDeleting(member)}
        >
          Delete
        </Button>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title={campaign.data ? `Members of ${campaign.data.title}` : 'Members'}
        description="Everyone this campaign sends to, by name and address."
      />
      <Anchor component={Link} to={`/campaigns/detail/${id}/members`} size="sm" mb="xs" display="inline-block">
        ← The campaign’s recipients
      </Anchor>
      <DataTable<TCampaignMemberRow>
        label="Members of the campaign"
        queryKey={campaignKeys.membersList(id)}
        url={membersListUrl(id)}
        columns={columns}
        defaultSort={{ column: 'email', order: 'asc' }}
        defaultPerPage={MEMBERS_LIST_PER_PAGE}
        searchable
        emptyText="No data found."
        rowLabel={(member) => member.email}
      />
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete this member?" centered>
        {deleting && (
          <Stack>
            <Text size="sm">
              {deleting.fullname ? `${deleting.fullname} <${deleting.email}>` : deleting.email} gets no more emails of
              this campaign, and their history goes.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDeleting(null)}>
                Cancel
              </Button>
              <Button color="red.9" data-autofocus loading={remove.isPending} onClick={() => remove.mutate(deleting)}>
                Delete
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
};
