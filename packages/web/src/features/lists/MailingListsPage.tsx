import { ActionIcon, Anchor, Box, Button, Menu, NativeSelect, Text } from '@mantine/core';
import type { TMailingList, TSendingAccount } from '@sendwell/contracts';
import {
  IconAddressBook,
  IconDots,
  IconEdit,
  IconFileImport,
  IconForms,
  IconMailCheck,
  IconPlus,
  IconRefresh,
  IconTrash,
  IconUsers,
  IconUserX,
} from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { showSuccess } from '../../app/toasts';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { addressStyle, breakBeforeAt } from '../../components/EmailAddress';
import { PageHeader } from '../../components/PageHeader';
import { useAccounts } from '../accounts/accounts.queries';
import { NoAccounts } from '../accounts/NoAccounts';
import { DeleteListModal } from './DeleteListModal';
import { GenericControlModal } from './GenericControlModal';
import { ImportCsvModal, type TImportTarget } from './ImportCsvModal';
import { ActiveImports } from './ImportProgressCard';
import { ListVerifiedCell } from './ListBadges';
import { ListFormModal, type TListFormState } from './ListFormModal';
import { formatCount } from './lists.format';
import {
  LISTS_URL,
  listDetailPath,
  listKeys,
  signupFormPath,
  useImportProgressEvents,
  useSyncFromProvider,
} from './lists.queries';
import { useListVerificationEvents, VerifyListModal } from './VerifyListModal';

type TRowActions = {
  onImport: (list: TMailingList) => void;
  onEdit: (list: TMailingList) => void;
  onGeneric: (list: TMailingList) => void;
  onVerify: (list: TMailingList) => void;
  onDelete: (list: TMailingList) => void;
};

const ListActions = ({
  list,
  onImport,
  onEdit,
  onGeneric,
  onVerify,
  onDelete,
}: TRowActions & { list: TMailingList }) => (
  <Menu position="bottom-end" shadow="md" width={230}>
    <Menu.Target>
      <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${list.address}`}>
        <IconDots size={18} aria-hidden />
      </ActionIcon>
    </Menu.Target>
    {/* The dropdown is portalled out of the row, but React still bubbles its clicks to the row, which opens the list. */}
    <Menu.Dropdown onClick={(event) => event.stopPropagation()}>
      <Menu.Item component={Link} to={listDetailPath(list)} leftSection={<IconUsers size={16} aria-hidden />}>
        View/Edit Members
      </Menu.Item>
      <Menu.Item leftSection={<IconFileImport size={16} aria-hidden />} onClick={() => onImport(list)}>
        Import CSV
      </Menu.Item>
      <Menu.Item leftSection={<IconEdit size={16} aria-hidden />} onClick={() => onEdit(list)}>
        Edit List
      </Menu.Item>
      <Menu.Item component={Link} to={signupFormPath(list)} leftSection={<IconForms size={16} aria-hidden />}>
        Signup Form
      </Menu.Item>
      <Menu.Item leftSection={<IconMailCheck size={16} aria-hidden />} onClick={() => onVerify(list)}>
        Verify Your List
      </Menu.Item>
      <Menu.Item leftSection={<IconUserX size={16} aria-hidden />} onClick={() => onGeneric(list)}>
        Generic Email Control
      </Menu.Item>
      <Menu.Divider />
      <Menu.Item color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={() => onDelete(list)}>
        Delete List
      </Menu.Item>
    </Menu.Dropdown>
  </Menu>
);

/** Mailgun keeps lists of its own; the other kinds of account have nothing to sync (spec §6). */
const SyncButton = ({ accounts }: { accounts: TSendingAccount[] }) => {
  const sync = useSyncFromProvider();
  const mailgunAccounts = accounts.filter((account) => account.provider === 'mailgun');
  const run = (accountId: number) =>
    sync.mutate(accountId, {
      onSuccess: ({ message }) => showSuccess(message),
    });
  const button = (onClick?: () => void) => (
    <Button
      variant="default"
      leftSection={<IconRefresh size={16} aria-hidden />}
      loading={sync.isPending}
      onClick={onClick}
    >
      Sync From Provider
    </Button>
  );

  const [only] = mailgunAccounts;
  if (!only) return null;
  if (mailgunAccounts.length === 1) return button(() => run(only.id));
  return (
    <Menu position="bottom-end" shadow="md">
      <Menu.Target>{button()}</Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Sync the lists of</Menu.Label>
        {mailgunAccounts.map((account) => (
          <Menu.Item key={account.id} onClick={() => run(account.id)}>
            {account.name} ({account.domain})
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
};

/** Rendered inside the table's empty-state paragraph, so phrasing elements only. */
const NoLists = ({ onCreate }: { onCreate: () => void }) => (
  <Box component="span" style={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 8 }}>
    <Text component="span">No data found.</Text>
    <Text component="span" size="sm" c="dimmed" maw={520}>
      A mailing list is an address (alias@your-domain) that gathers members you send to. Create one, then add members by
      hand or from a CSV file.
    </Text>
    <Button size="xs" variant="light" leftSection={<IconPlus size={14} aria-hidden />} onClick={onCreate}>
      Create List
    </Button>
  </Box>
);

/** The mailing lists table (spec §2 screen 5). */
export const MailingListsPage = () => {
  const navigate = useNavigate();
  const accounts = useAccounts();
  const [accountFilter, setAccountFilter] = useState('');
  const [formState, setFormState] = useState<TListFormState>(null);
  const [importing, setImporting] = useState<TImportTarget | null>(null);
  const [deleting, setDeleting] = useState<TMailingList | null>(null);
  const [genericList, setGenericList] = useState<TMailingList | null>(null);
  const [verifyList, setVerifyList] = useState<TMailingList | null>(null);
  useListVerificationEvents();
  useImportProgressEvents();

  const accountList = accounts.data ?? [];
  const hasNoAccounts = accounts.isSuccess && accountList.length === 0;
  const openCreate = () => setFormState({ mode: 'create' });

  const columns: TDataTableColumn<TMailingList>[] = [
    {
      key: 'address',
      title: 'Address',
      sortable: true,
      render: (list) => (
        // Named by the address itself: the break opportunity inside it is no part of its name.
        <Anchor component={Link} to={listDetailPath(list)} size="sm" style={addressStyle()} aria-label={list.address}>
          {breakBeforeAt(list.address)}
        </Anchor>
      ),
    },
    { key: 'name', title: 'Name', sortable: true },
    {
      key: 'members_count',
      title: 'Members',
      sortable: true,
      align: 'right',
      render: (list) => formatCount(list.members_count),
    },
    { key: 'verified_count', title: 'Verified', sortable: true, render: (list) => <ListVerifiedCell list={list} /> },
    {
      key: 'actions',
      title: 'Actions',
      width: 80,
      align: 'center',
      // One small control already: phones show it as it is, pinned to the row's edge.
      isCompact: true,
      render: (list) => (
        <ListActions
          list={list}
          onImport={setImporting}
          onEdit={(edited) => setFormState({ mode: 'edit', list: edited })}
          onGeneric={setGenericList}
          onVerify={setVerifyList}
          onDelete={setDeleting}
        />
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Mailing Lists"
        description="The lists you send to, with their members. Open a list to add, edit or remove members."
        actions={
          <>
            <SyncButton accounts={accountList} />
            <Button
              leftSection={<IconPlus size={16} aria-hidden />}
              onClick={openCreate}
              disabled={!accounts.isSuccess || hasNoAccounts}
            >
              Create List
            </Button>
          </>
        }
      />

      <ActiveImports />

      {hasNoAccounts ? (
        <NoAccounts
          icon={IconAddressBook}
          why="A mailing list belongs to one of your sending accounts; its address is an alias at the account's domain."
        />
      ) : (
        <DataTableCard<TMailingList>
          label="Mailing lists"
          queryKey={listKeys.table}
          url={LISTS_URL}
          columns={columns}
          filters={{ account_id: accountFilter || undefined }}
          onRowClick={(list) => navigate(listDetailPath(list))}
          emptyText={<NoLists onCreate={openCreate} />}
          toolbar={
            accountList.length > 0 && (
              <NativeSelect
                aria-label="Filter by account"
                value={accountFilter}
                onChange={(event) => setAccountFilter(event.currentTarget.value)}
                data={[
                  { value: '', label: 'All accounts' },
                  ...accountList.map((account) => ({ value: String(account.id), label: account.name })),
                ]}
              />
            )
          }
        />
      )}

      <ListFormModal state={formState} accounts={accountList} onClose={() => setFormState(null)} />
      <ImportCsvModal list={importing} onClose={() => setImporting(null)} />
      <DeleteListModal list={deleting} onClose={() => setDeleting(null)} />
      <GenericControlModal list={genericList} onClose={() => setGenericList(null)} />
      <VerifyListModal list={verifyList} onClose={() => setVerifyList(null)} />
    </>
  );
};
