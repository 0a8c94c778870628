import { Alert, Button, Group, Modal, Radio, Stack, Table, Text, TextInput } from '@mantine/core';
import type { TMember, TMemberConsent } from '@sendwell/contracts';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { QueryStatus } from '../../components/QueryStatus';
import { useErasePerson, useExportPerson, useMemberConsent } from './lists.queries';
import { useRetained } from './useRetained';

const SOURCE_LABELS: Record<TMemberConsent['source'], string> = {
  form: 'Signup form',
  manual: 'Added by hand',
  import: 'Import',
  provider: 'Synced from Mailgun',
  api: 'API',
};

const ConsentRecords = ({ memberId }: { memberId: number }) => {
  const consent = useMemberConsent(memberId);
  const formatDateTime = useFormatDateTime();
  if (consent.isPending || consent.isError) {
    return (
      <QueryStatus
        query={consent}
        label="Loading the consent records"
        failed="The consent records could not be loaded"
      />
    );
  }
  if (consent.data.length === 0) {
    return <Text>No consent record: this member was added before Sendwell kept them.</Text>;
  }
  return (
    <Stack gap="lg">
      {consent.data.map((record, index) => {
        const rows: [string, string][] = [
          ['Source', `${SOURCE_LABELS[record.source]}${record.detail ? ` (${record.detail})` : ''}`],
          ['Agreed', formatDateTime(record.agreed_at)],
          ['From IP address', record.ip ?? 'not recorded'],
          ...(record.user_agent ? [['Browser', record.user_agent] as [string, string]] : []),
          ['Agreed to', record.consent_text || 'no words recorded'],
          ...(record.confirmation_sent_at
            ? [['Confirmation sent', formatDateTime(record.confirmation_sent_at)] as [string, string]]
            : []),
          ...(record.source === 'form'
            ? [
                [
                  'Confirmed',
                  record.confirmed_at
                    ? `${formatDateTime(record.confirmed_at)}${record.confirmed_ip ? ` from ${record.confirmed_ip}` : ''}`
                    : record.confirmation_sent_at
                      ? 'not yet'
                      : 'not asked (single opt-in)',
                ] as [string, string],
              ]
            : []),
        ];
        return (
          <Table
            // biome-ignore lint/suspicious/noArrayIndexKey: the records are shown in the server's order and never reordered.
            key={index}
            withTableBorder
            variant="vertical"
            layout="fixed"
            aria-label={`Consent record ${index + 1}`}
          >
            <Table.Tbody>
              {rows.map(([label, value]) => (
                <Table.Tr key={label}>
                  <Table.Th w={150}>{label}</Table.Th>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        );
      })}
    </Stack>
  );
};

/** Where a member came from and what they agreed to, newest first. */
export const ConsentModal = ({ member, onClose }: { member: TMember | null; onClose: () => void }) => {
  const shown = useRetained(member);
  return (
    <Modal opened={member !== null} onClose={onClose} title={`Consent of ${shown?.email ?? ''}`} size="lg">
      {shown && <ConsentRecords memberId={shown.id} />}
    </Modal>
  );
};

/** Everything held about the member's address, across every list, send and event: a file to hand to the person. */
export const ExportPersonModal = ({ member, onClose }: { member: TMember | null; onClose: () => void }) => {
  const shown = useRetained(member);
  const exportPerson = useExportPerson();
  const [format, setFormat] = useState<'json' | 'csv'>('json');
  const start = () => {
    if (!shown) return;
    exportPerson.mutate({ email: shown.email, format }, { onSuccess: onClose, onError: showError });
  };
  return (
    <Modal opened={member !== null} onClose={onClose} title="Export this person’s data">
      <Stack>
        <Text>
          Everything you hold about <strong>{shown?.email}</strong>: the lists it is on with its consent, the emails you
          sent it and what happened to them, suppressions, drip campaigns and verifications.
        </Text>
        <Radio.Group label="Format" value={format} onChange={(value) => setFormat(value as 'json' | 'csv')}>
          <Group mt="xs">
            <Radio value="json" label="JSON" />
            <Radio value="csv" label="CSV" />
          </Group>
        </Radio.Group>
        <DialogActions onCancel={onClose} isPending={exportPerson.isPending}>
          <Button onClick={start} loading={exportPerson.isPending}>
            Download
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

/** Erases everything held about the address; the person must be named again to confirm, as it cannot be undone. */
export const ErasePersonModal = ({ member, onClose }: { member: TMember | null; onClose: () => void }) => {
  const shown = useRetained(member);
  const erase = useErasePerson();
  const [typed, setTyped] = useState('');
  const isConfirmed = shown !== null && typed.trim().toLowerCase() === shown.email.toLowerCase();
  const close = () => {
    setTyped('');
    onClose();
  };
  const confirm = () => {
    if (!shown || !isConfirmed) return;
    erase.mutate(shown.email, {
      onSuccess: ({ message }) => {
        showSuccess(message, 'Erased');
        close();
      },
      onError: showError,
    });
  };
  return (
    <Modal opened={member !== null} onClose={close} title="Erase this person’s data?">
      <Stack>
        <Alert color="red" icon={<IconAlertTriangle size={18} aria-hidden />}>
          Every record of <strong>{shown?.email}</strong> goes, on all your lists: memberships and consent, the emails
          you sent it and their events, suppressions, drip campaigns and verifications. This cannot be undone. The
          address is kept only as a hash, so it is never mailed again.
        </Alert>
        <TextInput
          label="Type the address to confirm"
          value={typed}
          autoComplete="off"
          onChange={(event) => setTyped(event.currentTarget.value)}
        />
        <DialogActions onCancel={close} isPending={erase.isPending}>
          <Button color="red" onClick={confirm} loading={erase.isPending} disabled={!isConfirmed}>
            Erase everything
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};
