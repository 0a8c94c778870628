import { Alert, Button, Checkbox, FileInput, Group, Select, Stack, Table, Text } from '@mantine/core';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_MESSAGES,
  guessColumnRoles,
  isGenericEmail,
  joinName,
  namePartKeyOf,
  readEmailCell,
  type TCampaignRecipientInput,
  VERIFY_MAX_ADDRESSES,
  VERIFY_MESSAGES,
} from '@sendwell/contracts';
import { IconFileUpload, IconLock } from '@tabler/icons-react';
import Papa from 'papaparse';
import { useState } from 'react';
import { TableScroller } from '../../components/TableScroller';
import { useImportOptions } from '../lists/lists.queries';

type TRole = 'email' | 'name' | 'variable' | 'skip';
type TColumn = { header: string; role: TRole };
type TMapping = { columns: TColumn[]; isEmailLocked: boolean };

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
 * email headed `email` (then locked) or where the addresses are, First Name + Last Name (FNAME + LNAME, Given
 * name + Surname…) joined as the Name, other headed columns as custom variables.
 */
const guessColumns = (rows: string[][], headed: boolean): TMapping => {
  const header = rows[0] ?? [];
  const { roles, isEmailLocked } = guessColumnRoles(
    header.map((cell) => (headed ? cell.trim() || null : null)),
    addressColumnOf(headed ? rows.slice(1) : rows),
  );
  return {
    // A column headed `email` is the email, as in the list import: fixed, no other column takes it.
    isEmailLocked,
    columns: header.map((cell, index) => {
      const role = roles[index] ?? 'skip';
      return {
        header: headed ? cell.trim() || `Column ${index + 1}` : `Column ${index + 1}`,
        role: role === 'field' ? 'variable' : role,
      };
    }),
  };
};

/**
 * The CSV tab: read in the browser (at most 1.5 MB), columns mapped (the email locked when a
 * header says so), three rows previewed; each file added is a source of its own.
 */
export const FileUpload = ({
  onRecipients,
  isSaving,
}: {
  onRecipients: (
    rows: TCampaignRecipientInput[],
    options: { removeGeneric: boolean; verify: boolean; fileName: string },
  ) => void;
  isSaving: boolean;
}) => {
  const options = useImportOptions();
  const [file, setFile] = useState<File | null>(null);
  const [rows, setRows] = useState<string[][]>([]);
  const [hasHeaders, setHasHeaders] = useState(true);
  const [{ columns, isEmailLocked }, setMapping] = useState<TMapping>({ columns: [], isEmailLocked: false });
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
    setMapping(guessColumns(data, headed));
  };

  const changeHeaders = (headed: boolean) => {
    setHasHeaders(headed);
    setMapping(guessColumns(rows, headed));
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
      { removeGeneric: removeGeneric || isAllGeneric, verify: verify && canVerify, fileName: file?.name ?? '' },
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
                  {columns.map((column, index) => {
                    const isLocked = isEmailLocked && column.role === 'email';
                    return (
                      // biome-ignore lint/suspicious/noArrayIndexKey: columns are positions
                      <Table.Th key={index}>
                        <Stack gap={4}>
                          <Group gap={4} wrap="nowrap">
                            <Text size="sm" fw={600}>
                              {column.header}
                            </Text>
                            {isLocked && <IconLock size={14} aria-label="Locked: the header says email" role="img" />}
                          </Group>
                          <Select
                            aria-label={`Use of ${column.header}`}
                            size="xs"
                            data={[
                              { value: 'email', label: 'Email', disabled: isEmailLocked && !isLocked },
                              { value: 'name', label: 'Name' },
                              { value: 'variable', label: 'Custom variable' },
                              { value: 'skip', label: 'Skip' },
                            ]}
                            value={column.role}
                            disabled={isLocked}
                            onChange={(value) =>
                              setMapping({
                                isEmailLocked,
                                columns: columns.map((other, position) =>
                                  position === index
                                    ? { ...other, role: value as TRole }
                                    : value === 'email' && other.role === 'email'
                                      ? { ...other, role: 'skip' }
                                      : other,
                                ),
                              })
                            }
                            allowDeselect={false}
                          />
                        </Stack>
                      </Table.Th>
                    );
                  })}
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
            <Button onClick={submit} loading={isSaving}>
              Use these recipients
            </Button>
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
