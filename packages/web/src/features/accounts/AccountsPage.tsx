import {
  Accordion,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { TAccountProviders, TSendingAccount } from '@sendwell/contracts';
import { IconAlertCircle, IconInbox, IconPlus, IconServer } from '@tabler/icons-react';
import { type ReactNode, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { EmptyState } from '../../components/EmptyState';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { AccountForm } from './AccountForm';
import { isTestInboxDriver, PROVIDER_LABELS, smtpServiceOptions } from './accounts.form';
import { useAccountProviders, useAccounts, useDeleteAccount } from './accounts.queries';
import { BreakerSettings } from './BreakerSettings';

type TFormState = { mode: 'add'; preset?: 'test-inbox' } | { mode: 'edit'; accountId: number } | null;

const Detail = ({ label, children }: { label: string; children: ReactNode }) => (
  <Stack gap={2}>
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>
      {children}
    </Text>
  </Stack>
);

const serviceLabel = (account: TSendingAccount, providers: TAccountProviders | undefined): string => {
  if (account.provider === 'google') return account.gmail_accounts && !account.username ? 'Google sign-in' : 'Gmail';
  const service = providers ? smtpServiceOptions(providers).find((option) => option.driver === account.driver) : null;
  if (service) return service.label;
  return isTestInboxDriver(account.driver) ? 'Sendwell test inbox' : (account.driver ?? '—');
};

/** What is stored for an account, never a secret: the API key only as its masked last characters. */
const AccountDetails = ({ account, providers }: { account: TSendingAccount; providers?: TAccountProviders }) =>
  account.provider === 'mailgun' ? (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
      <Detail label="Domain">{account.domain ?? '—'}</Detail>
      <Detail label="Region">{account.region?.toUpperCase() ?? '—'}</Detail>
      <Detail label="API key">{account.apiKey ? <Code>{account.apiKey}</Code> : '—'}</Detail>
      <Detail label="Imports mailing lists">{account.getList ? 'Yes' : 'No'}</Detail>
    </SimpleGrid>
  ) : (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
      <Detail label="Service">{serviceLabel(account, providers)}</Detail>
      <Detail label="Server">{account.host ? `${account.host}:${account.port ?? ''}` : '—'}</Detail>
      <Detail label="Encryption">{account.encryption?.toUpperCase() ?? '—'}</Detail>
      <Detail label={account.provider === 'google' ? 'Gmail address' : 'Username'}>
        {account.username ?? account.gmail_accounts?.email ?? '—'}
      </Detail>
      <Detail label="From Address">{account.fromAddress ?? '—'}</Detail>
      <Detail label="Maximum Email per Day">
        {account.operatorMailPerDay === null
          ? account.mailPerDay
          : `${account.operatorMailPerDay.toLocaleString('en-US')} (set by the operator)`}
      </Detail>
    </SimpleGrid>
  );

const DeleteAccountModal = ({ account, onClose }: { account: TSendingAccount | null; onClose: () => void }) => {
  const deleteAccount = useDeleteAccount();
  const confirm = () => {
    if (!account) return;
    deleteAccount.mutate(account.id, {
      onSuccess: ({ message }) => {
        showSuccess(message, null);
        onClose();
      },
    });
  };
  return (
    <Modal opened={account !== null} onClose={onClose} title="Delete sending account?">
      <Stack>
        <Text>
          <strong>{account?.name}</strong> and its stored credentials will be deleted. Sending through it stops.
        </Text>
        <DialogActions onCancel={onClose} isPending={deleteAccount.isPending}>
          <Button color="red" loading={deleteAccount.isPending} onClick={confirm} data-testid="account-delete-confirm">
            Delete
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

/** Coming back from Google's sign-in, the server says how it went in the address; say it once, then drop it. */
const useGoogleSignInOutcome = () => {
  const [searchParams, setSearchParams] = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const isConnected = searchParams.get('google') === 'connected';
  const email = searchParams.get('email');
  const googleError = searchParams.get('google_error');
  useEffect(() => {
    if (!isConnected && !googleError) return;
    if (isConnected) {
      notifications.show({
        color: 'green',
        message: email ? `Gmail account ${email} connected.` : 'Gmail account connected.',
        position: 'top-center',
      });
    }
    if (googleError) setError(googleError);
    setSearchParams({}, { replace: true });
  }, [isConnected, email, googleError, setSearchParams]);
  return { error, dismiss: () => setError(null) };
};

export const AccountsPage = () => {
  const accounts = useAccounts();
  const providers = useAccountProviders();
  const [form, setForm] = useState<TFormState>(null);
  const [expanded, setExpanded] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<TSendingAccount | null>(null);
  const googleOutcome = useGoogleSignInOutcome();

  const list = accounts.data ?? [];
  const isAddOpen = form?.mode === 'add';
  const closeForm = () => setForm(null);

  const toggleAdd = () => setForm(isAddOpen ? null : { mode: 'add' });
  const connectTestInbox = () => setForm({ mode: 'add', preset: 'test-inbox' });

  const addForm = isAddOpen && providers.data && (
    <Paper withBorder p="lg" mb="lg">
      <Title order={2} fz="h4" mb="md">
        {form.preset === 'test-inbox' ? 'Connect the test inbox' : 'Add a sending account'}
      </Title>
      <AccountForm
        // A new preset starts a fresh form.
        key={form.preset ?? 'add'}
        providers={providers.data}
        preset={form.preset}
        isFirstAccount={list.length === 0}
        onSaved={(account) => {
          closeForm();
          setExpanded(String(account.id));
        }}
        onCancel={closeForm}
      />
    </Paper>
  );

  return (
    <>
      <PageHeader
        title="Sending Accounts"
        description="The Mailgun, SMTP and Gmail accounts Sendwell sends through. The primary account is used unless you choose another."
        actions={
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={toggleAdd}
            // The form needs the options, and whether this is the first account (it becomes primary).
            disabled={!providers.data || !accounts.data}
            aria-expanded={isAddOpen}
            data-testid="add-account"
          >
            Add account
          </Button>
        }
      />

      {googleOutcome.error && (
        <Alert
          color="red"
          icon={<IconAlertCircle size={18} />}
          title="Google sign-in failed"
          withCloseButton
          onClose={googleOutcome.dismiss}
          mb="lg"
        >
          {googleOutcome.error}
        </Alert>
      )}
      {providers.isError && (
        <LoadFailedAlert
          title="The account options could not be loaded"
          onRetry={() => void providers.refetch()}
          mb="lg"
        />
      )}

      {addForm}

      {accounts.isPending || accounts.isError ? (
        <QueryStatus query={accounts} label="Loading accounts" failed="Your accounts could not be loaded" py="xl" />
      ) : list.length === 0 ? (
        !isAddOpen && (
          <EmptyState
            icon={IconServer}
            title="You have no sending accounts yet."
            action={
              providers.data?.testInbox && (
                <Button
                  size="md"
                  leftSection={<IconInbox size={18} />}
                  onClick={connectTestInbox}
                  data-testid="connect-test-inbox"
                >
                  Connect the test inbox
                </Button>
              )
            }
          >
            Connect a Mailgun, SMTP or Gmail account to start sending.
            {providers.data?.testInbox &&
              ' Just trying Sendwell? The test inbox keeps every message on this server, where you can read it.'}
          </EmptyState>
        )
      ) : (
        <Accordion variant="separated" value={expanded} onChange={setExpanded}>
          {list.map((account) => {
            const isEditing = form?.mode === 'edit' && form.accountId === account.id;
            return (
              <Accordion.Item key={account.id} value={String(account.id)} data-testid={`account-item-${account.id}`}>
                <Accordion.Control>
                  <Group gap="sm" wrap="wrap">
                    <Text fw={600}>{account.name}</Text>
                    <Badge variant="light" tt="none">
                      {PROVIDER_LABELS[account.provider]}
                    </Badge>
                    {isTestInboxDriver(account.driver) && (
                      <Badge variant="light" color="gray" tt="none">
                        Test inbox
                      </Badge>
                    )}
                    {account.active && (
                      <Badge color="green" tt="none">
                        Primary Account
                      </Badge>
                    )}
                  </Group>
                </Accordion.Control>
                <Accordion.Panel>
                  {isEditing && providers.data ? (
                    <AccountForm
                      account={account}
                      providers={providers.data}
                      isFirstAccount={false}
                      onSaved={closeForm}
                      onCancel={closeForm}
                    />
                  ) : (
                    <Stack>
                      <AccountDetails account={account} providers={providers.data} />
                      <BreakerSettings account={account} />
                      <Group justify="flex-end" gap="xs">
                        <Button
                          variant="default"
                          disabled={!providers.data}
                          onClick={() => setForm({ mode: 'edit', accountId: account.id })}
                        >
                          Edit
                        </Button>
                        <Button color="red" variant="light" onClick={() => setDeleting(account)}>
                          Delete
                        </Button>
                      </Group>
                    </Stack>
                  )}
                </Accordion.Panel>
              </Accordion.Item>
            );
          })}
        </Accordion>
      )}

      <DeleteAccountModal account={deleting} onClose={() => setDeleting(null)} />
    </>
  );
};
