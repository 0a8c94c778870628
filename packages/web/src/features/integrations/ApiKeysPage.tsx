import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import {
  API_KEY_SCOPE_DESCRIPTIONS,
  API_KEY_SCOPES,
  type TApiKey,
  type TApiKeyScope,
  ZCreateApiKeyRequest,
} from '@sendwell/contracts';
import { IconKey } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { ActionsHeader } from '../../components/ActionsHeader';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { SettingsForm, SettingsSection } from '../../components/SettingsSection';
import { TableScroller } from '../../components/TableScroller';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from './integrations.queries';
import { SecretOnce } from './SecretOnce';

/** The form for a new key, and above it the key it made, shown this once. */
const CreateKeyForm = () => {
  const create = useCreateApiKey();
  const [created, setCreated] = useState<string | null>(null);
  const form = useZodForm(ZCreateApiKeyRequest, {
    initialValues: { name: '', scopes: ['lists:read'] },
    onSubmit: (request, { fail }) =>
      create.mutate(request, {
        onSuccess: ({ key }) => {
          setCreated(key);
          form.setValue('name', '');
        },
        onError: fail,
      }),
  });
  return (
    <>
      {created && (
        <SecretOnce
          title="Your new API key"
          value={created}
          note="Copy it now and keep it somewhere safe: Sendwell stores only a fingerprint of it and cannot show it again."
          onDone={() => setCreated(null)}
          testId="new-api-key-value"
        />
      )}
      <SettingsForm
        title="New API key"
        onSubmit={form.onSubmit}
        submitLabel="Create key"
        isPending={create.isPending}
        submitIcon={<IconKey size={16} />}
      >
        <TextInput
          label="Name"
          description="Where the key is used, e.g. “Shop” or “CRM sync”."
          inputWrapperOrder={['label', 'input', 'description', 'error']}
          {...form.inputProps('name')}
        />
        <Checkbox.Group
          label="What it may do"
          value={form.values.scopes as string[]}
          onChange={(scopes) => form.setValue('scopes', scopes as TApiKeyScope[])}
          error={form.errors.scopes}
        >
          <Stack gap="xs" mt="xs">
            {API_KEY_SCOPES.map((scope) => (
              <Checkbox
                key={scope}
                value={scope}
                label={<Code>{scope}</Code>}
                description={API_KEY_SCOPE_DESCRIPTIONS[scope]}
              />
            ))}
          </Stack>
        </Checkbox.Group>
      </SettingsForm>
    </>
  );
};

const KeysTable = ({ keys }: { keys: TApiKey[] }) => {
  const revoke = useRevokeApiKey();
  const formatDateTime = useFormatDateTime();
  const confirmRevoke = (key: TApiKey) =>
    modals.openConfirmModal({
      title: `Revoke “${key.name}”?`,
      children: (
        <Text size="sm">Requests with this key are refused from the moment you confirm. This cannot be undone.</Text>
      ),
      labels: { confirm: 'Revoke key', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        revoke.mutate(key.id, {
          onSuccess: ({ message }) => showSuccess(message),
        }),
    });
  if (keys.length === 0) return <Text c="dimmed">No API keys yet.</Text>;
  return (
    <TableScroller label="API keys">
      <Table striped aria-label="API keys" miw={720}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th>Scopes</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last used</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {keys.map((key) => (
            <Table.Tr key={key.id} data-testid="api-key-row">
              <Table.Td>{key.name}</Table.Td>
              <Table.Td>
                <Code>{key.prefix}…</Code>
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {key.scopes.map((scope) => (
                    <Badge key={scope} variant="light" tt="none">
                      {scope}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>{formatDateTime(key.created_at)}</Table.Td>
              <Table.Td>{key.last_used_at ? formatDateTime(key.last_used_at) : 'Never'}</Table.Td>
              <Table.Td>
                {key.revoked_at ? (
                  <Badge color="gray" variant="outline">
                    Revoked
                  </Badge>
                ) : (
                  <Button size="xs" color="red" variant="light" onClick={() => confirmRevoke(key)}>
                    Revoke<VisuallyHidden> {key.name}</VisuallyHidden>
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroller>
  );
};

/** Settings → API keys (issue 48 §2): make, see and revoke the keys integrations call `/api` with. */
export const ApiKeysPage = () => {
  const keys = useApiKeys();
  return (
    <Stack>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys let your other systems call Sendwell’s API with <Code>Authorization: Bearer sw_…</Code>. Each route of
            the <Anchor href="/api/docs">API document</Anchor> names the scope it needs.
          </>
        }
      />
      <CreateKeyForm />
      <SettingsSection title="Your keys">
        {keys.isPending || keys.isError ? (
          <QueryStatus query={keys} label="Loading API keys" failed="Your API keys could not be loaded." />
        ) : (
          <KeysTable keys={keys.data} />
        )}
      </SettingsSection>
    </Stack>
  );
};
