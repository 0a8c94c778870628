import {
  Alert,
  Checkbox,
  Group,
  Input,
  Loader,
  NativeSelect,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { hasCsvExtension, LIST_MESSAGES } from '@sendwell/contracts';
import { IconAlertCircle, IconLock } from '@tabler/icons-react';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import { TableScroller } from '../../components/TableScroller';
import { formatSize } from '../test-inbox/test-inbox.format';
import {
  COLUMN_ROLES,
  CSV_SAMPLE_BYTES,
  chooseRole,
  columnsOf,
  dataRowsOf,
  defaultChoices,
  hasHeaderRow,
  parseCsvSample,
  previewRows,
  readCsvSample,
  type TColumnChoice,
  type TColumnRole,
  type TCsvSample,
  type TPreviewRow,
} from './csv-preview';
import { formatCount } from './lists.format';

/**
 * The CSV column-mapping dialog's pieces (spec §2 screen 7, §5): a file picked and read
 * with the import's encoding and delimiter rules, its columns each given a role (the email
 * auto-mapped and locked when a header says email), and a preview of the first rows. The
 * list import and the verification tool's upload both use them, so a file reads the same
 * in both.
 */

export type TMappingState = { hasHeaders: boolean; choices: TColumnChoice[]; isEmailLocked: boolean };

const mappingFor = (sample: TCsvSample, hasHeaders: boolean): TMappingState => ({
  hasHeaders,
  ...defaultChoices(sample, hasHeaders),
});

/** Reads the whole file, not only the preview's first bytes: for a tool that sends its rows. */
const readWholeCsv = async (file: Blob): Promise<TCsvSample> =>
  parseCsvSample(new Uint8Array(await file.arrayBuffer()), true);

/**
 * A chosen CSV file, read, with its column mapping. `maxBytes`: larger files are refused
 * before reading (`tooLarge` says so); `isWholeFile`: read all of it rather than a sample.
 */
export const useCsvMapping = ({
  maxBytes,
  tooLarge = LIST_MESSAGES.csvTooLarge,
  isWholeFile = false,
  onChange,
}: {
  maxBytes?: number;
  tooLarge?: string;
  isWholeFile?: boolean;
  /** Called when the file or the mapping changes (a form clears its last refusal). */
  onChange?: () => void;
}) => {
  const [file, setFile] = useState<File | null>(null);
  const [sample, setSample] = useState<TCsvSample | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [isReading, setIsReading] = useState(false);
  const [mapping, setMapping] = useState<TMappingState>({ hasHeaders: true, choices: [], isEmailLocked: false });
  // A second file chosen while the first is still being read wins.
  const latestFile = useRef<File | null>(null);

  const chooseFile = (chosen: File | null) => {
    onChange?.();
    latestFile.current = chosen;
    setFile(null);
    setSample(null);
    setFileError(null);
    if (!chosen) return;
    if (!hasCsvExtension(chosen.name)) {
      setFileError(LIST_MESSAGES.csvFormat);
      return;
    }
    if (maxBytes !== undefined && chosen.size > maxBytes) {
      setFileError(`${tooLarge} (${formatSize(maxBytes)})`);
      return;
    }
    setIsReading(true);
    (isWholeFile ? readWholeCsv(chosen) : readCsvSample(chosen))
      .then((read) => {
        if (latestFile.current !== chosen) return;
        if (read.rows.length === 0) {
          setFileError('No rows were found in this file.');
          return;
        }
        setFile(chosen);
        setSample(read);
        setMapping(mappingFor(read, hasHeaderRow(read.rows)));
      })
      .catch(() => {
        if (latestFile.current === chosen) setFileError('The file could not be read.');
      })
      .finally(() => {
        if (latestFile.current === chosen) setIsReading(false);
      });
  };

  const columns = sample ? columnsOf(sample, mapping.hasHeaders) : [];
  return {
    file,
    sample,
    fileError,
    isReading,
    mapping,
    columns,
    chooseFile,
    changeHeaders: (hasHeaders: boolean) => {
      if (!sample) return;
      setMapping(mappingFor(sample, hasHeaders));
      onChange?.();
    },
    changeRole: (index: number, role: TColumnRole) => {
      setMapping((current) => ({ ...current, choices: chooseRole(current.choices, index, role, columns) }));
      onChange?.();
    },
    changeKey: (index: number, key: string) =>
      setMapping((current) => ({
        ...current,
        choices: current.choices.map((choice, position) => (position === index ? { ...choice, key } : choice)),
      })),
  };
};

export type TCsvMapping = ReturnType<typeof useCsvMapping>;

/** The file field and, while the file is read, a line saying so. */
export const CsvFileField = ({
  csv,
  description,
  onChoose,
}: {
  csv: TCsvMapping;
  description: string;
  /** Besides reading the file: what else a new file resets. */
  onChoose?: () => void;
}) => {
  const fileInputId = useId();
  return (
    <>
      <Input.Wrapper id={fileInputId} label="CSV file" description={description} error={csv.fileError}>
        <input
          id={fileInputId}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          onChange={(event: ChangeEvent<HTMLInputElement>) => {
            onChoose?.();
            csv.chooseFile(event.currentTarget.files?.[0] ?? null);
          }}
          aria-invalid={csv.fileError !== null}
          // The browser sizes a file input to its button and file name: held to the dialog's width on a phone.
          style={{ display: 'block', maxWidth: '100%', marginTop: 'var(--mantine-spacing-xs)' }}
        />
      </Input.Wrapper>
      {csv.isReading && (
        <Group gap="xs">
          <Loader size="xs" />
          <Text size="sm">Reading the file…</Text>
        </Group>
      )}
    </>
  );
};

/**
 * Each column with its first row's cell and what it becomes. `roles`: the uses offered
 * (the verification tool needs only the email); a custom field's name is asked for when
 * that role is among them.
 */
export const CsvColumnsTable = ({
  csv,
  roles = COLUMN_ROLES,
}: {
  csv: TCsvMapping;
  roles?: readonly { value: TColumnRole; label: string }[];
}) => {
  const { sample, mapping, columns } = csv;
  if (!sample) return null;
  const firstRow = dataRowsOf(sample, mapping.hasHeaders)[0] ?? [];
  const hasFields = roles.some((role) => role.value === 'field');
  return (
    <Stack gap="xs">
      <Title order={3} fz="h5">
        Columns
      </Title>
      {roles.some((role) => role.value === 'name') && (
        <Text size="sm" c="dimmed">
          Columns used as Name are joined in their order: First Name and Last Name make “Ann Lee”.
        </Text>
      )}
      <TableScroller label="Column mapping">
        <Table aria-label="Column mapping" verticalSpacing="xs" miw={hasFields ? 520 : 360}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Column</Table.Th>
              <Table.Th>First row</Table.Th>
              <Table.Th>Use as</Table.Th>
              {hasFields && <Table.Th>Field name</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {columns.map((column) => {
              const choice = mapping.choices[column.index] ?? { role: 'skip', key: '' };
              const isLocked = mapping.isEmailLocked && choice.role === 'email';
              // A role the caller does not offer (a guessed name column) shows as skipped.
              const shown = roles.some((role) => role.value === choice.role) ? choice.role : 'skip';
              return (
                <Table.Tr key={column.index}>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Text size="sm" fw={500}>
                        {column.label}
                      </Text>
                      {isLocked && <IconLock size={14} aria-label="Locked: the header says email" role="img" />}
                    </Group>
                  </Table.Td>
                  <Table.Td maw={200}>
                    <Text size="sm" c="dimmed" truncate>
                      {firstRow[column.index] ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <NativeSelect
                      size="xs"
                      aria-label={`Use of ${column.label}`}
                      value={shown}
                      disabled={isLocked}
                      onChange={(event) => csv.changeRole(column.index, event.currentTarget.value as TColumnRole)}
                      data={roles.map((role) => ({
                        ...role,
                        // The email column a header named is fixed; no other column can take it.
                        disabled: role.value === 'email' && mapping.isEmailLocked && !isLocked,
                      }))}
                    />
                  </Table.Td>
                  {hasFields && (
                    <Table.Td>
                      {choice.role === 'field' && (
                        <TextInput
                          size="xs"
                          aria-label={`Field name for ${column.label}`}
                          value={choice.key}
                          onChange={(event) => csv.changeKey(column.index, event.currentTarget.value)}
                        />
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </TableScroller>
    </Stack>
  );
};

/** The first rows as they will be read (spec: 2 to 3 rows); the name column only where one is mapped. */
export const CsvPreviewTable = ({ rows, withName = true }: { rows: TPreviewRow[]; withName?: boolean }) => (
  <Stack gap="xs">
    <Title order={3} fz="h5">
      Preview
    </Title>
    <TableScroller label="Preview">
      <Table aria-label="Preview" verticalSpacing="xs" withTableBorder>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            {withName && <Table.Th>Name</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: preview rows never reorder
            <Table.Tr key={index}>
              <Table.Td>{row.email}</Table.Td>
              {withName && <Table.Td>{row.name}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroller>
  </Stack>
);

/** The file's name and size, and how much of it the preview read. */
export const CsvFileSummary = ({ csv, sampleBytes }: { csv: TCsvMapping; sampleBytes: number }) => {
  const { file, sample, mapping } = csv;
  if (!file || !sample) return null;
  const count = dataRowsOf(sample, mapping.hasHeaders).length;
  return (
    <Text size="sm" c="dimmed">
      {file.name}, {formatSize(file.size)}.{' '}
      {sample.isWholeFile
        ? `${formatCount(count)} ${count === 1 ? 'row' : 'rows'}.`
        : `The preview reads the first ${formatSize(sampleBytes)}; the whole file is imported.`}
    </Text>
  );
};

/**
 * A read file and how it will be read: its name and size, whether its first row is headers,
 * each column's use, and the first rows as mapped. Nothing before a file is read.
 */
export const CsvMappingFields = ({
  csv,
  roles,
  withName,
}: {
  csv: TCsvMapping;
  roles?: readonly { value: TColumnRole; label: string }[];
  withName?: boolean;
}) => {
  const { sample, file, mapping } = csv;
  if (!sample || !file) return null;
  return (
    <>
      <CsvFileSummary csv={csv} sampleBytes={CSV_SAMPLE_BYTES} />
      <Checkbox
        label="My file has headers"
        checked={mapping.hasHeaders}
        onChange={(event) => csv.changeHeaders(event.currentTarget.checked)}
      />
      <CsvColumnsTable csv={csv} roles={roles} />
      <CsvPreviewTable rows={previewRows(sample, mapping.hasHeaders, mapping.choices)} withName={withName} />
    </>
  );
};

/** What stops the file being read as mapped: the first row's problem, then any other (each once). */
export const CsvProblems = ({ firstRowIssue, problem }: { firstRowIssue: string | null; problem: string | null }) => (
  <>
    {firstRowIssue && (
      <Alert color="red" icon={<IconAlertCircle size={18} />} data-testid="first-row-problem">
        {firstRowIssue}
      </Alert>
    )}
    {problem && problem !== firstRowIssue && (
      <Alert color="red" icon={<IconAlertCircle size={18} />}>
        {problem}
      </Alert>
    )}
  </>
);
