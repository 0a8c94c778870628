import { ActionIcon, Anchor, Button, Group, Menu, Text } from '@mantine/core';
import type { TMailingList, TMember } from '@sendwell/contracts';
import {
  IconAddressBook,
  IconArrowLeft,
  IconDatabaseExport,
  IconDots,
  IconDownload,
  IconEdit,
  IconEraser,
  IconFileImport,
  IconForms,
  IconLicense,
  IconPlus,
  IconTrash,
} from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { EmailAddress } from '../../components/EmailAddress';
import { EmptyState } from '../../components/EmptyState';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { Loading } from '../../components/QueryStatus';
import { ImportCsvModal, type TImportTarget } from './ImportCsvModal';
import { ActiveImports } from './ImportProgressCard';
import { MemberVerifiedBadge, SubscribedBadge } from './ListBadges';
import { formatCount } from './lists.format';
import {
  listKeys,
  membersExportUrl,
  membersUrl,
  signupFormPath,
  useImportProgressEvents,
  useListInfo,
} from './lists.queries';
import { AddMemberModal, BulkDeleteMembersModal, DeleteMemberModal, EditMemberModal } from './MemberModals';
import { ConsentModal, ErasePersonModal, ExportPersonModal } from './PersonDataModals';
import { useRetained } from './useRetained';

const BackLink = () => (
  <Anchor component={Link} to="/mailing-lists" size="sm" mb="xs" display="inline-block">
    <Group gap={4} component="span" wrap="nowrap">
      <IconArrowLeft size={14} aria-hidden />
      Back to Mailing Lists
    </Group>
  </Anchor>
);

const ListNotFound = () => (
  <>
    <BackLink />
    <EmptyState icon={IconAddressBook} title="This mailing list does not exist." titleRole="alert">
      It may have been deleted, or the link is not quite right.
    </EmptyState>
  </>
);

type TMemberActions = {
  onEdit: (member: TMember) => void;
  onConsent: (member: TMember) => void;
  onExport: (member: TMember) => void;
  onErase: (member: TMember) => void;
  onDelete: (member: TMember) => void;
};

const MemberActions = ({
  member,
  onEdit,
  onConsent,
  onExport,
  onErase,
  onDelete,
}: TMemberActions & { member: TMember }) => (
  <Menu position="bottom-end" shadow="md">
    <Menu.Target>
      <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${member.email}`}>
        <IconDots size={18} aria-hidden />
      </ActionIcon>
    </Menu.Target>
    <Menu.Dropdown>
      <Menu.Item leftSection={<IconEdit size={16} aria-hidden />} onClick={() => onEdit(member)}>
        Edit
      </Menu.Item>
      <Menu.Item leftSection={<IconLicense size={16} aria-hidden />} onClick={() => onConsent(member)}>
        Consent
      </Menu.Item>
      <Menu.Item leftSection={<IconDatabaseExport size={16} aria-hidden />} onClick={() => onExport(member)}>
        Export their data
      </Menu.Item>
      <Menu.Divider />
      <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => onDelete(member)}>
        Delete
      </Menu.Item>
      <Menu.Item color="red" leftSection={<IconEraser size={16} aria-hidden />} onClick={() => onErase(member)}>
        Erase their data
      </Menu.Item>
    </Menu.Dropdown>
  </Menu>
);

type TBulkDelete = { ids: number[]; clearSelection: () => void };

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

const MembersScreen = ({ list }: { list: TMailingList }) => {
  const formatDateTime = useFormatDateTime();
  const [isAdding, setIsAdding] = useState(false);
  const [importing, setImporting] = useState<TImportTarget | null>(null);
  const [editing, setEditing] = useState<TMember | null>(null);
  const [deleting, setDeleting] = useState<TMember | null>(null);
  const [consentOf, setConsentOf] = useState<TMember | null>(null);
  const [exporting, setExporting] = useState<TMember | null>(null);
  const [erasing, setErasing] = useState<TMember | null>(null);
  const [bulkDelete, setBulkDelete] = useState<TBulkDelete | null>(null);
  const shownBulkDelete = useRetained(bulkDelete);

  const columns: TDataTableColumn<TMember>[] = [
    {
      key: 'email',
      title: 'Email',
      sortable: true,
      render: (member) => <EmailAddress email={member.email} size="md" />,
    },
    { key: 'fullname', title: 'Name', sortable: true },
    {
      key: 'subscribe',
      title: 'Subscribed',
      sortable: true,
      render: (member) => <SubscribedBadge subscribe={member.subscribe} unconfirmed={member.unconfirmed} />,
    },
    { key: 'verified', title: 'Verified', sortable: true, render: (member) => <MemberVerifiedBadge member={member} /> },
    {
      key: 'created_at',
      title: 'Added',
      sortable: true,
      width: 180,
      render: (member) => formatDateTime(member.created_at),
    },
    {
      key: 'actions',
      title: 'Actions',
      width: 80,
      align: 'center',
      // One small control already: phones show it as it is, pinned to the row's edge.
      isCompact: true,
      render: (member) => (
        <MemberActions
          member={member}
          onEdit={setEditing}
          onConsent={setConsentOf}
          onExport={setExporting}
          onErase={setErasing}
          onDelete={setDeleting}
        />
      ),
    },
  ];

  return (
    <>
      <BackLink />
      <PageHeader
        title={list.name || list.address}
        description={
          <>
            <Text component="span" fw={500} c="var(--mantine-color-text)">
              {list.address}
            </Text>
            {' · '}
            {plural(list.members_count, 'member', 'members')} · {formatCount(list.subscribed)} subscribed ·{' '}
            {formatCount(list.verified_count)} verified
          </>
        }
        actions={
          <>
            <Button
              variant="default"
              component={Link}
              to={signupFormPath(list)}
              leftSection={<IconForms size={16} aria-hidden />}
            >
              Signup Form
            </Button>
            <Button
              variant="default"
              component="a"
              href={membersExportUrl(list.id)}
              download
              leftSection={<IconDownload size={16} aria-hidden />}
            >
              Export CSV
            </Button>
            <Button
              variant="default"
              leftSection={<IconFileImport size={16} aria-hidden />}
              onClick={() => setImporting(list)}
            >
              Import CSV
            </Button>
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setIsAdding(true)}>
              Add Member
            </Button>
          </>
        }
      />

      <ActiveImports listId={list.id} />

      <DataTableCard<TMember>
        label={`Members of ${list.address}`}
        queryKey={listKeys.members(list.id)}
        url={membersUrl(list.id)}
        columns={columns}
        defaultSort={{ column: 'email', order: 'asc' }}
        selectable
        toolbar={({ selectedIds, clearSelection }) => (
          <Button
            color="red"
            variant="light"
            leftSection={<IconTrash size={16} aria-hidden />}
            disabled={selectedIds.length === 0}
            onClick={() => setBulkDelete({ ids: selectedIds.map(Number), clearSelection })}
          >
            Delete selected ({selectedIds.length})
          </Button>
        )}
      />

      <AddMemberModal list={list} opened={isAdding} onClose={() => setIsAdding(false)} />
      <ImportCsvModal list={importing} onClose={() => setImporting(null)} />
      <EditMemberModal member={editing} onClose={() => setEditing(null)} />
      <DeleteMemberModal member={deleting} onClose={() => setDeleting(null)} />
      <ConsentModal member={consentOf} onClose={() => setConsentOf(null)} />
      <ExportPersonModal member={exporting} onClose={() => setExporting(null)} />
      <ErasePersonModal member={erasing} onClose={() => setErasing(null)} />
      <BulkDeleteMembersModal
        list={list}
        memberIds={shownBulkDelete?.ids ?? []}
        opened={bulkDelete !== null}
        onClose={() => setBulkDelete(null)}
        onDeleted={() => bulkDelete?.clearSelection()}
      />
    </>
  );
};

const MembersLoader = ({ listId }: { listId: number }) => {
  const info = useListInfo(listId);
  if (info.isPending) return <Loading label="Loading the list" py="xl" />;
  if (info.isError) {
    if (info.error instanceof ApiError && info.error.status === 404) return <ListNotFound />;
    return <LoadFailedAlert title="The mailing list could not be loaded" onRetry={() => void info.refetch()} />;
  }
  return <MembersScreen list={info.data} />;
};

/** A list's members (spec §2 screen 6), at `/mailing-lists/detail/{accountId}/{listId}`. */
export const MembersPage = () => {
  const { listId } = useParams();
  const id = Number(listId);
  useImportProgressEvents();
  if (!Number.isInteger(id) || id <= 0) return <ListNotFound />;
  return <MembersLoader key={id} listId={id} />;
};
