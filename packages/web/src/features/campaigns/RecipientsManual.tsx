import { Alert, Button, Checkbox, Group, Stack, Table, TextInput } from '@mantine/core';
import { MANUAL_COLUMNS, readEmailCell, type TCampaignRecipientInput } from '@sendwell/contracts';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { TableScroller } from '../../components/TableScroller';
import { TagInput } from '../../components/TagInput';

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

/** Addresses the tag input takes at once (a manual table longer than this wants a file). */
const QUICK_LIMIT = 100;

/**
 * The manual tab: the spec's columns; email and name required; one row always left. Addresses
 * can be typed or pasted into the tag input first (spec §5's rules: valid, once, up to 100),
 * then put in the table, where each gets its name.
 */
export const ManualRows = ({
  onRecipients,
  isSaving,
}: {
  onRecipients: (rows: TCampaignRecipientInput[]) => void;
  isSaving: boolean;
}) => {
  const [rows, setRows] = useState<TManualRow[]>([emptyRow()]);
  const [addresses, setAddresses] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const putInTable = () => {
    const present = new Set(rows.map((row) => readEmailCell(row.email).email?.toLowerCase()).filter(Boolean));
    const fresh = addresses.filter((address) => !present.has(address.toLowerCase()));
    const kept = rows.filter((row) => MANUAL_COLUMNS.some((column) => row[column].trim()));
    const added = fresh.map((email) => ({ ...emptyRow(), email }));
    setRows([...kept, ...added].length > 0 ? [...kept, ...added] : [emptyRow()]);
    setAddresses([]);
  };
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
      <Group align="flex-end" gap="sm" wrap="wrap">
        <div style={{ flex: '1 1 260px', minWidth: 0 }}>
          <TagInput
            label="Addresses"
            description={`Enter, a comma or Tab after each; at most ${QUICK_LIMIT} at once.`}
            placeholder="ann@example.com"
            value={addresses}
            onChange={setAddresses}
            validator="email"
            limit={QUICK_LIMIT}
          />
        </div>
        <Button variant="default" disabled={addresses.length === 0} onClick={putInTable}>
          Put them in the table
        </Button>
      </Group>
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
        <Button onClick={submit} loading={isSaving}>
          Use these recipients
        </Button>
      </Group>
      {problem && (
        <Alert color="red" role="alert">
          {problem}
        </Alert>
      )}
    </Stack>
  );
};
