import { Button, Modal, Stack, Text } from '@mantine/core';
import {
  distinctEntries,
  firstRowProblem,
  readColumnEntries,
  type TVerifyStoreResult,
  VERIFY_MAX_ADDRESSES,
  VERIFY_MESSAGES,
  verificationApi,
} from '@sendwell/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, callRoute } from '../../app/api';
import { firstFieldMessages, showError } from '../../app/errors';
import { DialogActions } from '../../components/DialogActions';
import { CsvFileField, CsvMappingFields, CsvProblems, useCsvMapping } from '../lists/CsvMapping';
import { dataRowsOf, emailColumnOf } from '../lists/csv-preview';
import { formatCount } from '../lists/lists.format';

/** A verification file is read whole in the browser (it holds at most 10,000 addresses). */
const VERIFY_CSV_MAX_BYTES = 10 * 1024 * 1024;
/** The verification tool needs one column: the email. */
const VERIFY_ROLES = [
  { value: 'email' as const, label: 'Email' },
  { value: 'skip' as const, label: 'Skip' },
];

const VerifyCsvForm = ({
  onStored,
  onClose,
}: {
  onStored: (stored: TVerifyStoreResult['data']) => void;
  onClose: () => void;
}) => {
  const [problem, setProblem] = useState<string | null>(null);
  const csv = useCsvMapping({ maxBytes: VERIFY_CSV_MAX_BYTES, isWholeFile: true, onChange: () => setProblem(null) });
  const { sample, mapping, file, isReading } = csv;
  const emailColumn = emailColumnOf(mapping.choices);
  const firstRowIssue =
    sample && emailColumn !== null
      ? firstRowProblem(sample.rows, { hasHeaders: mapping.hasHeaders, emailColumn })
      : null;
  // What the server will count, counted here with the same rules.
  const read =
    sample && emailColumn !== null
      ? readColumnEntries(sample.rows, { hasHeaders: mapping.hasHeaders, emailColumn })
      : null;
  const counts = read ? distinctEntries(read.entries) : null;

  const store = useMutation({
    // Only the email column is sent: the other columns are neither needed nor read.
    mutationFn: ({ rows, hasHeaders }: { rows: string[][]; hasHeaders: boolean }) =>
      callRoute(verificationApi.fileStore, { body: { csvFile: rows, emailColumn: 0, hasHeaders } }),
    onSuccess: ({ data }) => onStored(data),
    onError: (error) => {
      if (error instanceof ApiError && error.status === 422) {
        setProblem(firstFieldMessages(error.body.errors)[0] ?? error.message);
      } else showError(error);
    },
  });

  const submit = () => {
    if (!sample || !file || emailColumn === null || dataRowsOf(sample, mapping.hasHeaders).length === 0) {
      setProblem(VERIFY_MESSAGES.selectEmail);
      return;
    }
    if (firstRowIssue) {
      setProblem(firstRowIssue);
      return;
    }
    if (counts && counts.addresses.length + counts.invalid.length > VERIFY_MAX_ADDRESSES) {
      setProblem(VERIFY_MESSAGES.tooMany);
      return;
    }
    store.mutate({ rows: sample.rows.map((row) => [row[emailColumn] ?? '']), hasHeaders: mapping.hasHeaders });
  };

  return (
    <Stack>
      <CsvFileField csv={csv} description="A .csv or .txt file. Choose the column that holds the email addresses." />
      {sample && file && (
        <>
          <CsvMappingFields csv={csv} roles={VERIFY_ROLES} withName={false} />
          {counts && read && (
            <Text size="sm" data-testid="verify-csv-counts">
              {formatCount(counts.addresses.length)} distinct {counts.addresses.length === 1 ? 'address' : 'addresses'}
              {counts.invalid.length > 0
                ? `; ${formatCount(counts.invalid.length)} ${counts.invalid.length === 1 ? 'row is' : 'rows are'} not an address (free, listed as invalid)`
                : ''}
              {read.emptyRows.length > 0
                ? `; ${formatCount(read.emptyRows.length)} ${read.emptyRows.length === 1 ? 'row has' : 'rows have'} no email in this column`
                : ''}
              .
            </Text>
          )}
        </>
      )}
      <CsvProblems firstRowIssue={firstRowIssue} problem={problem} />
      <DialogActions onCancel={onClose} isPending={store.isPending}>
        <Button onClick={submit} loading={store.isPending} disabled={isReading}>
          Continue
        </Button>
      </DialogActions>
    </Stack>
  );
};

/** Spec §2 screen 4's CSV upload: the file, its email column chosen as in a list import, then the confirmation. */
export const VerifyCsvModal = ({
  opened,
  onStored,
  onClose,
}: {
  opened: boolean;
  onStored: (stored: TVerifyStoreResult['data']) => void;
  onClose: () => void;
}) => (
  <Modal opened={opened} onClose={onClose} title="Verify a CSV file" size="xl">
    {opened && <VerifyCsvForm onStored={onStored} onClose={onClose} />}
  </Modal>
);
