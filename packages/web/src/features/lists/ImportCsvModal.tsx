import {
  Alert,
  Button,
  Checkbox,
  Group,
  Input,
  List,
  Loader,
  Modal,
  NativeSelect,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  firstRowProblem,
  GENERIC_IMPORT_PREVIEW,
  hasCsvExtension,
  LIST_MESSAGES,
  moreText,
  type TListImport,
  type TMailingList,
  usableCredit,
  ZImportMapping,
} from '@sendwell/contracts';
import { IconAlertCircle, IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import { ApiError } from '../../app/api';
import { firstFieldMessages, showError } from '../../app/errors';
import { useUserQuery } from '../../app/session';
import { TableScroller } from '../../components/TableScroller';
import { formatSize } from '../test-inbox/test-inbox.format';
import {
  COLUMN_ROLES,
  CSV_SAMPLE_BYTES,
  chooseRole,
  columnsOf,
  dataRowsOf,
  defaultChoices,
  emailColumnOf,
  genericSummary,
  hasHeaderRow,
  importProblem,
  previewRows,
  readCsvSample,
  type TColumnChoice,
  type TColumnRole,
  type TCsvSample,
  toImportMapping,
} from './csv-preview';
import { ImportProgress } from './ImportProgressCard';
import { formatCount } from './lists.format';
import { useImportOptions, useStartImport } from './lists.queries';
import { useRetained } from './useRetained';

export type TImportTarget = Pick<TMailingList, 'id' | 'address'>;

const NO_GENERIC_NAMES: ReadonlySet<string> = new Set();

/** What the server says when it refuses the upload: a 422's field messages, else its message. */
const uploadFailureMessage = (error: ApiError) =>
  error.status === 422 ? (firstFieldMessages(error.body.errors)[0] ?? error.message) : error.message;

type TMappingState = { hasHeaders: boolean; choices: TColumnChoice[]; isEmailLocked: boolean };

const mappingFor = (sample: TCsvSample, hasHeaders: boolean): TMappingState => ({
  hasHeaders,
  ...defaultChoices(sample, hasHeaders),
});

const ImportCsvForm = ({ list, onClose }: { list: TImportTarget; onClose: () => void }) => {
  const fileInputId = useId();
  const startImport = useStartImport(list.id);
  const options = useImportOptions().data;
  const genericNames = options?.genericNames ?? NO_GENERIC_NAMES;
  const [file, setFile] = useState<File | null>(null);
  const [sample, setSample] = useState<TCsvSample | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [isReading, setIsReading] = useState(false);
  const [mapping, setMapping] = useState<TMappingState>({ hasHeaders: true, choices: [], isEmailLocked: false });
  const [wantsGenericRemoved, setWantsGenericRemoved] = useState(false);
  const [wantsVerify, setWantsVerify] = useState(false);
  // The user's credits, when known (the dialog is always behind the sign-in guard in the app).
  const user = useUserQuery().data;
  const usable = user ? usableCredit(user.credit) : 0;
  const [problem, setProblem] = useState<string | null>(null);
  const [started, setStarted] = useState<TListImport | null>(null);
  // A second file chosen while the first is still being read wins.
  const latestFile = useRef<File | null>(null);

  const chooseFile = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.currentTarget.files?.[0] ?? null;
    latestFile.current = chosen;
    setFile(null);
    setSample(null);
    setFileError(null);
    setProblem(null);
    setWantsGenericRemoved(false);
    if (!chosen) return;
    if (!hasCsvExtension(chosen.name)) {
      setFileError(LIST_MESSAGES.csvFormat);
      return;
    }
    if (options && chosen.size > options.importMaxBytes) {
      setFileError(`${LIST_MESSAGES.csvTooLarge} (${formatSize(options.importMaxBytes)})`);
      return;
    }
    setIsReading(true);
    readCsvSample(chosen)
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
  const generic = sample ? genericSummary(sample, mapping.hasHeaders, mapping.choices, genericNames) : null;
  // Spec §4: when every address is generic they are not placed on the list.
  const removeGeneric = generic?.isAllGeneric === true || wantsGenericRemoved;
  // Spec §4: the verify option is off when every address is generic, or without credits to spend.
  const canVerify = generic?.isAllGeneric !== true && usable > 0;

  const changeHeaders = (hasHeaders: boolean) => {
    if (!sample) return;
    setMapping(mappingFor(sample, hasHeaders));
    setProblem(null);
  };

  const changeRole = (index: number, role: TColumnRole) => {
    setMapping((current) => ({ ...current, choices: chooseRole(current.choices, index, role, columns) }));
    setProblem(null);
  };

  const changeKey = (index: number, key: string) =>
    setMapping((current) => ({
      ...current,
      choices: current.choices.map((choice, position) => (position === index ? { ...choice, key } : choice)),
    }));

  const save = () => {
    const found = importProblem(sample, mapping.hasHeaders, mapping.choices);
    if (found || !file) {
      setProblem(found ?? LIST_MESSAGES.uploadFirst);
      return;
    }
    const request = toImportMapping(mapping.choices, {
      hasHeaders: mapping.hasHeaders,
      removeGeneric,
      verify: canVerify && wantsVerify,
    });
    const parsed = ZImportMapping.safeParse(request);
    if (!parsed.success) {
      setProblem(parsed.error.issues[0]?.message ?? LIST_MESSAGES.selectEmail);
      return;
    }
    setProblem(null);
    startImport.mutate(
      { file, mapping: request },
      {
        onSuccess: ({ data }) => setStarted(data),
        onError: (error) => {
          if (error instanceof ApiError && error.status !== 401) setProblem(uploadFailureMessage(error));
          else showError(error);
        },
      },
    );
  };

  if (started) {
    return (
      <Stack>
        <Text>{LIST_MESSAGES.importQueued}</Text>
        <ImportProgress listImport={started} />
        <Group justify="flex-end">
          <Button onClick={onClose}>Close</Button>
        </Group>
      </Stack>
    );
  }

  const preview = sample ? previewRows(sample, mapping.hasHeaders, mapping.choices) : [];
  // The spec's first-row rule, said as soon as the file is read and whenever the mapping changes.
  const emailColumn = emailColumnOf(mapping.choices);
  const firstRowIssue =
    sample && emailColumn !== null
      ? firstRowProblem(sample.rows, { hasHeaders: mapping.hasHeaders, emailColumn })
      : null;
  const firstRow = sample ? (dataRowsOf(sample, mapping.hasHeaders)[0] ?? []) : [];
  const sampleRowCount = sample ? dataRowsOf(sample, mapping.hasHeaders).length : 0;

  return (
    <Stack>
      <Input.Wrapper
        id={fileInputId}
        label="CSV file"
        description="A .csv or .txt file with one member per row. Large files are imported in the background."
        error={fileError}
      >
        <input
          id={fileInputId}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          onChange={chooseFile}
          aria-invalid={fileError !== null}
          // The browser sizes a file input to its button and file name: held to the dialog's width on a phone.
          style={{ display: 'block', maxWidth: '100%', marginTop: 'var(--mantine-spacing-xs)' }}
        />
      </Input.Wrapper>

      {isReading && (
        <Group gap="xs">
          <Loader size="xs" />
          <Text size="sm">Reading the file…</Text>
        </Group>
      )}

      {sample && file && (
        <>
          <Text size="sm" c="dimmed">
            {file.name}, {formatSize(file.size)}.{' '}
            {sample.isWholeFile
              ? `${formatCount(sampleRowCount)} ${sampleRowCount === 1 ? 'row' : 'rows'}.`
              : `The preview reads the first ${formatSize(CSV_SAMPLE_BYTES)}; the whole file is imported.`}
          </Text>
          <Checkbox
            label="My file has headers"
            checked={mapping.hasHeaders}
            onChange={(event) => changeHeaders(event.currentTarget.checked)}
          />

          <Stack gap="xs">
            <Title order={3} fz="h5">
              Columns
            </Title>
            <TableScroller label="Column mapping">
              <Table aria-label="Column mapping" verticalSpacing="xs" miw={520}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Column</Table.Th>
                    <Table.Th>First row</Table.Th>
                    <Table.Th>Use as</Table.Th>
                    <Table.Th>Field name</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {columns.map((column) => {
                    const choice = mapping.choices[column.index] ?? { role: 'skip', key: '' };
                    const isLocked = mapping.isEmailLocked && choice.role === 'email';
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
                            value={choice.role}
                            disabled={isLocked}
                            onChange={(event) => changeRole(column.index, event.currentTarget.value as TColumnRole)}
                            data={COLUMN_ROLES.map((role) => ({
                              ...role,
                              // The email column a header named is fixed; no other column can take it.
                              disabled: role.value === 'email' && mapping.isEmailLocked && !isLocked,
                            }))}
                          />
                        </Table.Td>
                        <Table.Td>
                          {choice.role === 'field' && (
                            <TextInput
                              size="xs"
                              aria-label={`Field name for ${column.label}`}
                              value={choice.key}
                              onChange={(event) => changeKey(column.index, event.currentTarget.value)}
                            />
                          )}
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </TableScroller>
          </Stack>

          <Stack gap="xs">
            <Title order={3} fz="h5">
              Preview
            </Title>
            <TableScroller label="Preview">
              <Table aria-label="Preview" verticalSpacing="xs" withTableBorder>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Name</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {preview.map((row, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: preview rows never reorder
                    <Table.Tr key={index}>
                      <Table.Td>{row.email}</Table.Td>
                      <Table.Td>{row.name}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroller>
          </Stack>

          {generic && generic.generic.length > 0 && (
            <Alert color="orange" icon={<IconAlertTriangle size={18} />} data-testid="generic-warning">
              <Stack gap="xs">
                <Text size="sm">{generic.isAllGeneric ? LIST_MESSAGES.allGeneric : LIST_MESSAGES.genericWarning}</Text>
                <List size="sm" spacing={2}>
                  {generic.generic.slice(0, GENERIC_IMPORT_PREVIEW).map((email, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a file may repeat an address
                    <List.Item key={index}>{email}</List.Item>
                  ))}
                </List>
                {generic.generic.length > GENERIC_IMPORT_PREVIEW && (
                  <Text size="sm">{moreText(generic.generic.length, GENERIC_IMPORT_PREVIEW)}</Text>
                )}
                <Checkbox
                  label="Remove generic addresses"
                  checked={removeGeneric}
                  disabled={generic.isAllGeneric}
                  onChange={(event) => setWantsGenericRemoved(event.currentTarget.checked)}
                />
              </Stack>
            </Alert>
          )}
        </>
      )}

      {sample && (
        <Checkbox
          label="Verify the addresses after the import"
          description={
            canVerify
              ? `One credit for each address not checked before; you have ${usable.toLocaleString('en-US')}. Unverified email addresses will increase your email's spam score!`
              : generic?.isAllGeneric
                ? 'Every address in this file is generic: there is nothing to verify.'
                : 'Verification needs credits: you have none left.'
          }
          checked={canVerify && wantsVerify}
          disabled={!canVerify}
          onChange={(event) => setWantsVerify(event.currentTarget.checked)}
          data-testid="import-verify"
        />
      )}

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

      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={startImport.isPending}>
          Cancel
        </Button>
        <Button onClick={save} loading={startImport.isPending} disabled={isReading}>
          Save Member List
        </Button>
      </Group>
      {startImport.isPending && (
        <Text size="sm" c="dimmed" ta="right" aria-live="polite">
          Uploading {file ? formatSize(file.size) : ''}…
        </Text>
      )}
    </Stack>
  );
};

/** Add members from a CSV file (spec §2 screen 7): pick, map, preview, then a background import. */
export const ImportCsvModal = ({ list, onClose }: { list: TImportTarget | null; onClose: () => void }) => {
  const shown = useRetained(list);
  return (
    <Modal
      opened={list !== null}
      onClose={onClose}
      title={shown ? `Import members into ${shown.address}` : 'Import members'}
      size="xl"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {shown && <ImportCsvForm key={shown.id} list={shown} onClose={onClose} />}
    </Modal>
  );
};
