import { Alert, Button, Checkbox, Group, List, Modal, Stack, Text } from '@mantine/core';
import {
  firstRowProblem,
  GENERIC_IMPORT_PREVIEW,
  LIST_MESSAGES,
  moreText,
  SEND_MESSAGES,
  type TListImport,
  type TMailingList,
  usableCredit,
  ZImportMapping,
} from '@sendwell/contracts';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState } from 'react';
import { ApiError } from '../../app/api';
import { firstFieldMessages, showError } from '../../app/errors';
import { useUserQuery } from '../../app/session';
import { DialogActions } from '../../components/DialogActions';
import { formatSize } from '../test-inbox/test-inbox.format';
import { CsvFileField, CsvMappingFields, CsvProblems, useCsvMapping } from './CsvMapping';
import { emailColumnOf, genericSummary, importProblem, toImportMapping } from './csv-preview';
import { ImportProgress } from './ImportProgressCard';
import { useImportOptions, useStartImport } from './lists.queries';
import { useRetained } from './useRetained';

export type TImportTarget = Pick<TMailingList, 'id' | 'address'>;

const NO_GENERIC_NAMES: ReadonlySet<string> = new Set();

/** What the server says when it refuses the upload: a 422's field messages, else its message. */
const uploadFailureMessage = (error: ApiError) =>
  error.status === 422 ? (firstFieldMessages(error.body.errors)[0] ?? error.message) : error.message;

const ImportCsvForm = ({ list, onClose }: { list: TImportTarget; onClose: () => void }) => {
  const startImport = useStartImport(list.id);
  const options = useImportOptions().data;
  const genericNames = options?.genericNames ?? NO_GENERIC_NAMES;
  const [problem, setProblem] = useState<string | null>(null);
  const csv = useCsvMapping({ maxBytes: options?.importMaxBytes, onChange: () => setProblem(null) });
  const { file, sample, mapping, isReading } = csv;
  const [wantsGenericRemoved, setWantsGenericRemoved] = useState(false);
  const [wantsVerify, setWantsVerify] = useState(false);
  // The user's credits, when known (the dialog is always behind the sign-in guard in the app).
  const user = useUserQuery().data;
  const usable = user ? usableCredit(user.credit) : 0;
  const [started, setStarted] = useState<TListImport | null>(null);

  const generic = sample ? genericSummary(sample, mapping.hasHeaders, mapping.choices, genericNames) : null;
  // Spec §4: when every address is generic they are not placed on the list.
  const removeGeneric = generic?.isAllGeneric === true || wantsGenericRemoved;
  // Spec §4: the verify option is off when every address is generic, or without credits to spend.
  // Without billing (`BILLING=off`) verification costs nothing.
  const isFree = user?.billing === false;
  const canVerify = generic?.isAllGeneric !== true && (isFree || usable > 0);

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

  // The spec's first-row rule, said as soon as the file is read and whenever the mapping changes.
  const emailColumn = emailColumnOf(mapping.choices);
  const firstRowIssue =
    sample && emailColumn !== null
      ? firstRowProblem(sample.rows, { hasHeaders: mapping.hasHeaders, emailColumn })
      : null;

  return (
    <Stack>
      <CsvFileField
        csv={csv}
        description="A .csv or .txt file with one member per row. Large files are imported in the background."
        onChoose={() => setWantsGenericRemoved(false)}
      />

      {sample && file && (
        <>
          <CsvMappingFields csv={csv} />

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
              ? `${isFree ? '' : `One credit for each address not checked before; you have ${usable.toLocaleString('en-US')}. `}${SEND_MESSAGES.unverified}`
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

      <CsvProblems firstRowIssue={firstRowIssue} problem={problem} />

      <DialogActions onCancel={onClose} isPending={startImport.isPending}>
        <Button onClick={save} loading={startImport.isPending} disabled={isReading}>
          Save Member List
        </Button>
      </DialogActions>
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
    >
      {shown && <ImportCsvForm key={shown.id} list={shown} onClose={onClose} />}
    </Modal>
  );
};
