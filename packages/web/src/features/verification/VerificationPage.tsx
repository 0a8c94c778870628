import {
  Alert,
  Badge,
  Button,
  Group,
  List,
  Modal,
  Paper,
  Progress,
  Stack,
  Switch,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import {
  distinctEntries,
  moreText,
  readPastedEntries,
  routeUrl,
  type TVerifyItem,
  type TVerifyJob,
  type TVerifyStoreResult,
  usableCredit,
  VERDICTS,
  VERIFY_MAX_ADDRESSES,
  verificationApi,
} from '@sendwell/contracts';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { callRoute, toSearchParams } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { showError } from '../../app/errors';
import { useRealtimeEvent } from '../../app/realtime';
import { useSignedInUser } from '../../app/session';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DialogActions } from '../../components/DialogActions';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { ShortOfCreditsAlert } from '../credits/ShortOfCreditsAlert';
import { formatCount } from '../lists/lists.format';
import { VerifyCsvModal } from './VerifyCsvModal';

const JOBS_URL = routeUrl(verificationApi.jobs);
const keys = { jobs: ['verification', 'jobs'] as const, items: (id: number) => ['verification', 'items', id] as const };

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

/**
 * What the paste box holds, counted with the rules the server charges by (contracts'
 * `readPastedEntries`): the confirmation then shows the same figures.
 */
const pasteSummary = (text: string) => {
  if (text.trim() === '') return '';
  const { addresses, invalid, duplicates } = distinctEntries(readPastedEntries(text));
  return [
    plural(addresses.length, 'address', 'addresses'),
    duplicates > 0 ? `${plural(duplicates, 'repeat', 'repeats')} left out` : '',
    invalid.length > 0 ? `${plural(invalid.length, 'entry', 'entries')} not an address (free)` : '',
  ]
    .filter(Boolean)
    .join(', ');
};

/**
 * The paste box's live count, from a deferred copy of the text and in a component of its
 * own: typing re-renders the box at once and this line when there is time, never the page.
 */
const PasteSummary = ({ text }: { text: string }) => {
  const pasted = useDeferredValue(text);
  const summary = useMemo(() => pasteSummary(pasted), [pasted]);
  return summary ? (
    <Text size="sm" data-testid="paste-summary">
      {summary}
    </Text>
  ) : null;
};

/** Entries not checked that the confirmation names one by one; the rest are counted. */
const SKIPPED_SHOWN = 5;

const VERDICT_COLORS = { valid: 'green', invalid: 'red', unknown: 'yellow' } as const;

const JobProgress = ({ job }: { job: TVerifyJob }) => {
  const percent = job.total === 0 ? 0 : Math.round((job.checked / job.total) * 100);
  return (
    <Stack gap={2} miw={200}>
      <Progress value={percent} aria-label={`Verification ${job.id}: ${percent}% checked`} />
      <Text size="xs" c="dark.4">
        {job.checked.toLocaleString('en-US')} of {job.total.toLocaleString('en-US')} checked
      </Text>
    </Stack>
  );
};

const Results = ({ job }: { job: TVerifyJob }) => {
  const [verdict, setVerdict] = useState('');
  const columns: TDataTableColumn<TVerifyItem>[] = [
    { key: 'email', title: 'Email', sortable: true },
    {
      key: 'verdict',
      title: 'Verdict',
      sortable: true,
      render: (item) =>
        item.verdict ? (
          <Badge variant="light" color={VERDICT_COLORS[item.verdict]}>
            {item.verdict}
          </Badge>
        ) : (
          <Badge variant="outline">pending</Badge>
        ),
    },
    {
      key: 'reason',
      title: 'Why',
      render: (item) => (
        <Stack gap={0}>
          <Text size="xs">{item.reason ?? ''}</Text>
          {item.suggestion && (
            <Text size="xs" c="dark.4">
              Did you mean {item.suggestion}?
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'flags',
      title: 'Flags',
      render: (item) => (
        <Group gap={4}>
          {Object.entries(item.flags)
            .filter(([, isSet]) => isSet)
            .map(([flag]) => (
              <Badge key={flag} size="xs" variant="outline">
                {flag}
              </Badge>
            ))}
        </Group>
      ),
    },
  ];
  return (
    <DataTable<TVerifyItem>
      label={`Results of verification ${job.id}`}
      queryKey={keys.items(job.id)}
      url={routeUrl(verificationApi.items, { id: job.id })}
      columns={columns}
      defaultSort={{ column: 'email', order: 'asc' }}
      filters={{ verdict }}
      searchable
      toolbar={
        <Group gap="xs">
          <FilterSelect
            aria-label="Verdict"
            value={verdict}
            onChange={setVerdict}
            data={[{ value: '', label: 'All verdicts' }, ...VERDICTS.map((value) => ({ value, label: value }))]}
          />
          <Button
            component="a"
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} />}
            href={`${routeUrl(verificationApi.export, { id: job.id })}?${toSearchParams({ verdict })}`}
          >
            Download CSV
          </Button>
        </Group>
      }
      emptyText="No data found."
    />
  );
};

/** Email verification (spec §2 screen 4, §4): paste or upload, confirm the credits, watch it run. */
export const VerificationPage = () => {
  const formatDateTime = useFormatDateTime();
  const user = useSignedInUser();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [text, setText] = useState('');
  const [isUploading, setIsUploading] = useState(false);
  const [stored, setStored] = useState<TVerifyStoreResult['data'] | null>(null);
  const [checkAgain, setCheckAgain] = useState(false);
  const [countdown, setCountdown] = useState<number | null>(null);
  const openJob = Number(params.get('job')) || null;
  const showConfirmation = (data: TVerifyStoreResult['data']) => {
    setCheckAgain(false);
    setStored(data);
  };
  const store = useMutation({
    mutationFn: (emails: string) => callRoute(verificationApi.textStore, { body: { emails } }),
    onSuccess: ({ data }) => showConfirmation(data),
    onError: showError,
  });
  const start = useMutation({
    mutationFn: () =>
      callRoute(verificationApi.lastCheck, {
        body: { listId: stored!.listId, creditsToBeUsed: credits, checkAgain },
      }),
    onSuccess: () => {
      setStored(null);
      setText('');
      setCountdown(3);
    },
    onError: showError,
  });
  useRealtimeEvent(
    'VerificationProgressEvent',
    () => void queryClient.invalidateQueries({ queryKey: ['verification'] }),
  );
  // Spec §4: 'Your request is in the queue...' with a 3-second countdown, then the page anew.
  useEffect(() => {
    if (countdown === null) return;
    if (countdown === 0) {
      setCountdown(null);
      void queryClient.invalidateQueries({ queryKey: ['verification'] });
      return;
    }
    const timer = setTimeout(() => setCountdown(countdown - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown, queryClient]);

  const credits = stored ? (checkAgain ? stored.total : stored.creditToBeUsed) : 0;
  const available = usableCredit(user.credit);
  // A single-company install (`BILLING=off`) has no credits: nothing to count or buy.
  const isShort = user.billing && credits > available;

  const columns: TDataTableColumn<TVerifyJob>[] = [
    { key: 'created_at', title: 'Started', sortable: true, render: (job) => formatDateTime(job.created_at) },
    {
      key: 'status',
      title: 'Status',
      render: (job) => (
        <Stack gap={2} align="flex-start">
          <Badge variant="light" color={job.status === 'finished' ? 'green' : job.status === 'failed' ? 'red' : 'blue'}>
            {job.status}
          </Badge>
          {/* Addresses the server's broken resolver left unknown, and refunded (R48). */}
          {job.notice && (
            <Text size="xs" c="orange.9" maw={320} data-testid="verification-notice">
              {job.notice}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'progress', title: 'Progress', render: (job) => <JobProgress job={job} /> },
    {
      key: 'verdicts',
      title: 'Valid / invalid / unknown',
      render: (job) => `${job.valid} / ${job.invalid} / ${job.unknown}`,
    },
    {
      key: 'actions',
      title: 'Results',
      // One small control already: phones show it as it is, pinned to the row's edge.
      isCompact: true,
      render: (job) => (
        <Button size="compact-xs" variant="default" onClick={() => setParams({ job: String(job.id) })}>
          View results
        </Button>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Email Verification"
        description="Check addresses before you send: fewer bounces, a better sender reputation."
      />
      <Paper withBorder p="md" mb="lg">
        <Stack>
          <Textarea
            label="Emails"
            description="One per line (Name <address> works), or several on a line separated by commas or semicolons."
            autosize
            minRows={5}
            maxRows={14}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
          />
          <PasteSummary text={text} />
          <Text size="xs" c="dark.4">
            At most {VERIFY_MAX_ADDRESSES.toLocaleString('en-US')} emails can be verified at once. Your list may contain
            duplicates: each address is checked and charged once. A line that is not an address is listed as invalid and
            costs nothing.
          </Text>
          <Group>
            <Button loading={store.isPending} disabled={text.trim() === ''} onClick={() => store.mutate(text)}>
              Verify
            </Button>
            <Button variant="default" leftSection={<IconUpload size={16} />} onClick={() => setIsUploading(true)}>
              Upload CSV
            </Button>
          </Group>
        </Stack>
      </Paper>
      <Title order={2} fz="lg" mb="sm">
        Your verifications
      </Title>
      <Paper withBorder p="md" mb="lg">
        <DataTable<TVerifyJob>
          label="Your verifications"
          queryKey={keys.jobs}
          url={JOBS_URL}
          columns={columns}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          emptyText="No verifications yet."
        />
      </Paper>
      {openJob !== null && (
        <Paper withBorder p="md">
          <Title order={2} fz="lg" mb="sm">
            Results of verification {openJob}
          </Title>
          <Results job={{ id: openJob } as TVerifyJob} />
        </Paper>
      )}
      <Modal opened={stored !== null} onClose={() => setStored(null)} title="Verify these emails?">
        {stored && (
          <Stack>
            <Text size="sm">
              {stored.addresses.toLocaleString('en-US')} distinct address{stored.addresses === 1 ? '' : 'es'}
              {stored.totalDuplicate > 0
                ? `; ${stored.totalDuplicate} duplicate${stored.totalDuplicate === 1 ? '' : 's'} left out`
                : ''}
              .
            </Text>
            {(stored.invalid > 0 || stored.emptyRows > 0) && (
              <Alert color="yellow" title="Not checked, not charged" data-testid="verify-skipped">
                <Stack gap={4}>
                  {stored.invalid > 0 && (
                    <Text size="sm">
                      {plural(stored.invalid, 'entry is', 'entries are')} not an email address: listed as invalid in the
                      results, free of charge.
                    </Text>
                  )}
                  {stored.emptyRows > 0 && (
                    <Text size="sm">
                      {plural(stored.emptyRows, 'row has', 'rows have')} no email in the chosen column.
                    </Text>
                  )}
                  <List size="xs" spacing={2}>
                    {stored.skipped.slice(0, SKIPPED_SHOWN).map((entry) => (
                      <List.Item key={`${entry.line}-${entry.text}`}>
                        {entry.line}: {entry.text || '(empty)'} — {entry.reason}
                      </List.Item>
                    ))}
                  </List>
                  {stored.invalid + stored.emptyRows > SKIPPED_SHOWN && (
                    <Text size="xs">{moreText(stored.invalid + stored.emptyRows, SKIPPED_SHOWN)}</Text>
                  )}
                </Stack>
              </Alert>
            )}
            {stored.alreadyCheckedCount > 0 && (
              <>
                <Text size="sm">
                  {stored.alreadyCheckedCount} were already checked: their results are used again, free of charge.
                </Text>
                <Switch
                  label="Check them again"
                  checked={checkAgain}
                  onChange={(event) => setCheckAgain(event.currentTarget.checked)}
                />
              </>
            )}
            {user.billing && (
              <Text size="sm">
                Credits to use: <b>{credits.toLocaleString('en-US')}</b> of {available.toLocaleString('en-US')}{' '}
                available.
              </Text>
            )}
            {isShort && <ShortOfCreditsAlert />}
            <DialogActions onCancel={() => setStored(null)}>
              {isShort ? (
                <Button component={Link} to="/settings/subscription">
                  Buy Credits
                </Button>
              ) : (
                <Button loading={start.isPending} onClick={() => start.mutate()}>
                  Verify {stored.addresses.toLocaleString('en-US')}
                </Button>
              )}
            </DialogActions>
          </Stack>
        )}
      </Modal>
      <VerifyCsvModal
        opened={isUploading}
        onClose={() => setIsUploading(false)}
        onStored={(data) => {
          setIsUploading(false);
          showConfirmation(data);
        }}
      />
      <Modal opened={countdown !== null} onClose={() => setCountdown(null)} title="Verification queued">
        <Text size="sm" role="status">
          Your request is in the queue... It takes 1 to 5 minutes. This page updates in {countdown ?? 0} second
          {countdown === 1 ? '' : 's'}.
        </Text>
      </Modal>
    </>
  );
};
