import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  FileInput,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_MESSAGES,
  guessColumnRoles,
  isGenericEmail,
  joinName,
  MANUAL_COLUMNS,
  namePartKeyOf,
  readEmailCell,
  type TCampaignRecipientInput,
  type TVerifyStoreResult,
  usableCredit,
  VERIFY_MAX_ADDRESSES,
  VERIFY_MESSAGES,
  verificationApi,
} from '@sendwell/contracts';
import { IconFileUpload, IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import Papa from 'papaparse';
import { useState } from 'react';
import { Link } from 'react-router';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';
import { useSignedInUser } from '../../app/session';
import { TableScroller } from '../../components/TableScroller';
import { useImportOptions } from '../lists/lists.queries';
import { useCampaignMutation } from './campaigns.queries';

type TRole = 'email' | 'name' | 'variable' | 'skip';
type TColumn = { header: string; role: TRole };

const MANUAL_LABELS: Record<(typeof MANUAL_COLUMNS)[number], string> = {
  email: 'Email',
  name: 'Name',
  lastName: 'Last name',
  company: 'Company',
  title: 'Title',
  phone: 'Phone',
  address: 'Address',
  city: 'City',
  state: 'State',
  country: 'Country',
  industry: 'Industry',
};

type TManualRow = Record<(typeof MANUAL_COLUMNS)[number], string> & { key: number; selected: boolean };
let rowKeys = 0;
const emptyRow = (): TManualRow => ({
  key: ++rowKeys,
  selected: false,
  ...(Object.fromEntries(MANUAL_COLUMNS.map((column) => [column, ''])) as Record<
    (typeof MANUAL_COLUMNS)[number],
    string
  >),
});

const variableName = (header: string, index: number) =>
  header
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64) || `column_${index + 1}`;

/** The first column of the first data rows holding an address, for files without an `email` header. */
const addressColumnOf = (rows: readonly string[][]) => {
  for (const row of rows.slice(0, 50)) {
    const index = row.findIndex((cell) => readEmailCell(cell).email !== null);
    if (index !== -1) return index;
  }
  return null;
};

/**
 * The columns' first guess, by the list import's rule (`guessColumnRoles` in contracts): the
 * email headed `email` or where the addresses are, First Name + Last Name (FNAME + LNAME, Given
 * name + Surname…) joined as the Name, other headed columns as custom variables.
 */
const guessColumns = (rows: string[][], headed: boolean): TColumn[] => {
  const header = rows[0] ?? [];
  const { roles } = guessColumnRoles(
    header.map((cell) => (headed ? cell.trim() || null : null)),
    addressColumnOf(headed ? rows.slice(1) : rows),
  );
  return header.map((cell, index) => {
    const role = roles[index] ?? 'skip';
    return {
      header: headed ? cell.trim() || `Column ${index + 1}` : `Column ${index + 1}`,
      role: role === 'field' ? 'variable' : role,
    };
  });
};

type TVerifyOffer = { emails: string[]; stored: TVerifyStoreResult['data'] };

/**
 * The recipients step's verification offer (spec §4): the addresses go to the verification
 * tool's job (one credit per address not checked before, shown against the credits there are);
 * the campaign leaves out the ones found invalid.
 */
const VerifyOfferModal = ({ offer, onClose }: { offer: TVerifyOffer | null; onClose: () => void }) => {
  const user = useSignedInUser();
  const available = usableCredit(user.credit);
  const start = useMutation({
    mutationFn: (stored: TVerifyOffer['stored']) =>
      callRoute(verificationApi.lastCheck, { body: { listId: stored.listId, creditsToBeUsed: stored.creditToBeUsed } }),
    onSuccess: () => {
      notifications.show({
        color: 'green',
        title: 'Success!',
        message: VERIFY_MESSAGES.queued,
        position: 'top-center',
      });
      onClose();
    },
    onError: showError,
  });
  const needed = offer?.stored.creditToBeUsed ?? 0;
  // A single-company install (`BILLING=off`) has no credits: nothing to count or buy.
  const isShort = user.billing && needed > available;
  return (
    <Modal
      opened={offer !== null}
      onClose={onClose}
      title="Verify the recipients?"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {offer && (
        <Stack>
          <Text size="sm">
            {offer.stored.total.toLocaleString('en-US')} addresses;{' '}
            {offer.stored.alreadyCheckedCount.toLocaleString('en-US')} checked before (no charge). Addresses found
            invalid are not sent to.
          </Text>
          {user.billing && (
            <Text size="sm" fw={600} data-testid="verify-credits">
              Credits to use: {needed.toLocaleString('en-US')} of {available.toLocaleString('en-US')} available.
            </Text>
          )}
          {isShort && (
            <Alert color="orange">
              To complete this process; please buy credits.{' '}
              <Anchor component={Link} to="/settings/subscription" size="sm">
                Buy Credits
              </Anchor>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Not now
            </Button>
            <Button disabled={isShort} loading={start.isPending} onClick={() => start.mutate(offer.stored)}>
              Verify
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
};

/** The CSV tab: read in the browser (at most 1.5 MB), columns mapped, three rows previewed. */
const FileUpload = ({
  onRecipients,
}: {
  onRecipients: (rows: TCampaignRecipientInput[], options: { removeGeneric: boolean; verify: boolean }) => void;
}) => {
  const options = useImportOptions();
  const [file, setFile] = useState<File | null>(null);
  const [rows, setRows] = useState<string[][]>([]);
  const [hasHeaders, setHasHeaders] = useState(true);
  const [columns, setColumns] = useState<TColumn[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [removeGeneric, setRemoveGeneric] = useState(false);
  const [verify, setVerify] = useState(false);

  const read = async (picked: File | null) => {
    setFile(picked);
    setRows([]);
    setProblem(null);
    if (!picked) return;
    if (!/\.(csv|txt)$/i.test(picked.name)) return setProblem('File must be a CSV format.');
    if (picked.size > CAMPAIGN_DEFAULTS.csvMaxBytes) return setProblem(CAMPAIGN_MESSAGES.csvTooLarge);
    const { data } = Papa.parse<string[]>(await picked.text(), { skipEmptyLines: 'greedy' });
    if (data.length === 0) return setProblem('Please upload the CSV file first!');
    const header = data[0]!;
    const headed =
      header.some((cell) => cell.trim().toLowerCase() === 'email') ||
      !readEmailCell(header.find((cell) => cell.includes('@')) ?? '').email;
    setHasHeaders(headed);
    setRows(data);
    setColumns(guessColumns(data, headed));
  };

  const changeHeaders = (headed: boolean) => {
    setHasHeaders(headed);
    setColumns(guessColumns(rows, headed));
  };

  const body = hasHeaders ? rows.slice(1) : rows;
  const emailColumn = columns.findIndex((column) => column.role === 'email');
  const nameColumns = columns.flatMap((column, index) => (column.role === 'name' ? [index] : []));
  const generic = options.data
    ? body.filter((row) => {
        const email = readEmailCell(row[emailColumn] ?? '').email;
        return email && isGenericEmail(email, options.data.genericNames);
      }).length
    : 0;
  const isAllGeneric = body.length > 0 && generic === body.length;
  const canVerify = !isAllGeneric && body.length <= VERIFY_MAX_ADDRESSES;

  const submit = () => {
    if (emailColumn === -1) return setProblem('Please select email field first!');
    if (body.length === 0) return setProblem('Please upload the CSV file first!');
    if (!readEmailCell(body[0]![emailColumn] ?? '').email) {
      return setProblem('The first row has no valid email: remove the header row, or tick My file has headers.');
    }
    setProblem(null);
    onRecipients(
      body.map((row) => ({
        email: row[emailColumn] ?? '',
        name: joinName(row, nameColumns),
        variables: Object.fromEntries(
          columns.flatMap((column, index) => {
            const cell = (row[index] ?? '').trim();
            if (!cell) return [];
            if (column.role === 'variable') return [[variableName(column.header, index), cell]];
            // A 'First Name' or 'Last Name' column is kept as {{first_name}} / {{last_name}} too.
            const part = column.role === 'name' && hasHeaders ? namePartKeyOf(column.header) : null;
            return part ? [[part, cell]] : [];
          }),
        ),
      })),
      { removeGeneric: removeGeneric || isAllGeneric, verify: verify && canVerify },
    );
  };

  const preview = body.slice(0, 3);
  return (
    <Stack>
      <FileInput
        label="CSV file"
        description="A .csv or .txt file of at most 1.5 MB; one recipient a row."
        accept=".csv,.txt,text/csv,text/plain"
        leftSection={<IconFileUpload size={16} aria-hidden />}
        value={file}
        onChange={(picked) => void read(picked)}
        clearable
      />
      {rows.length > 0 && (
        <>
          <Checkbox
            label="My file has headers"
            checked={hasHeaders}
            onChange={(event) => changeHeaders(event.currentTarget.checked)}
          />
          <Text size="sm" c="dimmed">
            Columns used as Name are joined in their order: First Name and Last Name make “Ann Lee”.
          </Text>
          <TableScroller label="Column mapping">
            <Table aria-label="Column mapping" withTableBorder>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((column, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positions
                    <Table.Th key={index}>
                      <Stack gap={4}>
                        <Text size="sm" fw={600}>
                          {column.header}
                        </Text>
                        <Select
                          aria-label={`Use of ${column.header}`}
                          size="xs"
                          data={[
                            { value: 'email', label: 'Email' },
                            { value: 'name', label: 'Name' },
                            { value: 'variable', label: 'Custom variable' },
                            { value: 'skip', label: 'Skip' },
                          ]}
                          value={column.role}
                          onChange={(value) =>
                            setColumns(
                              columns.map((other, position) =>
                                position === index
                                  ? { ...other, role: value as TRole }
                                  : value === 'email' && other.role === 'email'
                                    ? { ...other, role: 'skip' }
                                    : other,
                              ),
                            )
                          }
                          allowDeselect={false}
                        />
                      </Stack>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {preview.map((row, rowIndex) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a preview of rows
                  <Table.Tr key={rowIndex}>
                    {columns.map((_, index) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: columns are positions
                      <Table.Td key={index}>{row[index] ?? ''}</Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroller>
          <Text size="sm" c="dimmed" data-testid="recipients-preview">
            {body.length.toLocaleString('en-US')} rows; the first three are shown.
            {preview.length > 0 &&
              ` They become ${preview
                .map((row) => {
                  const name = joinName(row, nameColumns);
                  const email = readEmailCell(row[emailColumn] ?? '').email ?? '(no valid email)';
                  return name ? `${name} <${email}>` : email;
                })
                .join(', ')}.`}
          </Text>
          {generic > 0 && (
            <Alert color="orange">
              {isAllGeneric
                ? 'Every address in this file is generic (info@, sales@…): they will not be placed on the campaign.'
                : `${generic} generic addresses (info@, sales@…). Sending to generic addresses may harm deliverability.`}
              <Checkbox
                mt="xs"
                label="Remove generic addresses"
                checked={removeGeneric || isAllGeneric}
                disabled={isAllGeneric}
                onChange={(event) => setRemoveGeneric(event.currentTarget.checked)}
              />
            </Alert>
          )}
          <Checkbox
            label="Verify the addresses (one credit per address not checked before)"
            description={
              body.length > VERIFY_MAX_ADDRESSES
                ? VERIFY_MESSAGES.tooMany
                : 'Addresses found invalid are left out when the campaign sends. You confirm the credits first.'
            }
            checked={verify && canVerify}
            disabled={!canVerify}
            onChange={(event) => setVerify(event.currentTarget.checked)}
          />
          <Group justify="flex-end">
            <Button onClick={submit}>Use these recipients</Button>
          </Group>
        </>
      )}
      {problem && (
        <Alert color="red" role="alert">
          {problem}
        </Alert>
      )}
    </Stack>
  );
};

/** The manual tab: the spec's columns; email and name required; one row always left. */
const ManualRows = ({ onRecipients }: { onRecipients: (rows: TCampaignRecipientInput[]) => void }) => {
  const [rows, setRows] = useState<TManualRow[]>([emptyRow()]);
  const [problem, setProblem] = useState<string | null>(null);
  const set = (key: number, patch: Partial<TManualRow>) =>
    setRows(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const submit = () => {
    const filled = rows.filter((row) => MANUAL_COLUMNS.some((column) => row[column].trim()));
    const bad = filled.find((row) => !readEmailCell(row.email).email || !row.name.trim());
    if (filled.length === 0 || bad) return setProblem('Each row needs a valid email and a name.');
    setProblem(null);
    onRecipients(
      filled.map((row) => ({
        email: row.email,
        name: row.name,
        variables: Object.fromEntries(
          MANUAL_COLUMNS.filter((column) => column !== 'email' && column !== 'name' && row[column].trim()).map(
            (column) => [column, row[column].trim()],
          ),
        ),
      })),
    );
  };
  const selected = rows.filter((row) => row.selected);
  return (
    <Stack>
      <TableScroller label="Recipients to add">
        <Table aria-label="Recipients to add" withTableBorder miw={1400}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Delete</Table.Th>
              {MANUAL_COLUMNS.map((column) => (
                <Table.Th key={column}>
                  {MANUAL_LABELS[column]}
                  {(column === 'email' || column === 'name') && ' *'}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row, index) => (
              <Table.Tr key={row.key}>
                <Table.Td>
                  <Checkbox
                    aria-label={`Select row ${index + 1} to delete`}
                    checked={row.selected}
                    disabled={rows.length === 1}
                    onChange={(event) => set(row.key, { selected: event.currentTarget.checked })}
                  />
                </Table.Td>
                {MANUAL_COLUMNS.map((column) => (
                  <Table.Td key={column}>
                    <TextInput
                      aria-label={`${MANUAL_LABELS[column]}, row ${index + 1}`}
                      size="xs"
                      value={row[column]}
                      onChange={(event) => set(row.key, { [column]: event.currentTarget.value })}
                    />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      <Group justify="space-between">
        <Group>
          <Button
            variant="default"
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => setRows([...rows, emptyRow()])}
          >
            Add row
          </Button>
          <Button
            variant="default"
            color="red"
            leftSection={<IconTrash size={16} aria-hidden />}
            disabled={selected.length === 0}
            onClick={() => {
              const left = rows.filter((row) => !row.selected);
              setRows(left.length > 0 ? left : [emptyRow()]);
            }}
          >
            Delete selected
          </Button>
        </Group>
        <Button onClick={submit}>Use these recipients</Button>
      </Group>
      {problem && (
        <Alert color="red" role="alert">
          {problem}
        </Alert>
      )}
    </Stack>
  );
};

/** Step 2: recipients from a CSV file or typed in; each save replaces the draft's recipients. */
export const RecipientsStep = ({
  temporary,
  count,
  onSaved,
}: {
  temporary: string;
  count: number;
  onSaved: () => void;
}) => {
  const save = useCampaignMutation('saveRecipients');
  const [offer, setOffer] = useState<TVerifyOffer | null>(null);
  const priceVerification = useMutation({
    mutationFn: (emails: string[]) => callRoute(verificationApi.textStore, { body: { emails: emails.join('\n') } }),
    onError: showError,
  });
  const store = (
    recipients: TCampaignRecipientInput[],
    { removeGeneric = false, verify = false }: { removeGeneric?: boolean; verify?: boolean } = {},
  ) =>
    save.mutate(
      { body: { temporary, recipients, removeGeneric, replace: true } },
      {
        onSuccess: ({ message }) => {
          notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
          if (!verify) return;
          const emails = recipients.map((recipient) => recipient.email);
          priceVerification.mutate(emails, { onSuccess: ({ data }) => setOffer({ emails, stored: data }) });
        },
        onError: showError,
      },
    );
  return (
    <Stack>
      <Paper withBorder p="md" radius="md">
        <Tabs defaultValue="file">
          <Tabs.List>
            <Tabs.Tab value="file">File Upload</Tabs.Tab>
            <Tabs.Tab value="manual">Add Recipients Manually</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="file" pt="md">
            <FileUpload onRecipients={store} />
            <VerifyOfferModal offer={offer} onClose={() => setOffer(null)} />
          </Tabs.Panel>
          <Tabs.Panel value="manual" pt="md">
            <ManualRows onRecipients={(rows) => store(rows)} />
          </Tabs.Panel>
        </Tabs>
      </Paper>
      <Group justify="space-between">
        <Text role="status" data-testid="recipient-count">
          {count > 0 ? `${count.toLocaleString('en-US')} recipients in this campaign.` : 'No recipients yet.'}
        </Text>
        <Button onClick={onSaved} disabled={count === 0 || save.isPending}>
          Next
        </Button>
      </Group>
    </Stack>
  );
};
