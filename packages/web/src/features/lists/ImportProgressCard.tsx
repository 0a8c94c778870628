import { Alert, Anchor, Badge, CloseButton, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import type { TListImport } from '@sendwell/contracts';
import { IconAlertTriangle, IconCircleCheck, IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { formatSize } from '../test-inbox/test-inbox.format';
import { formatCount } from './lists.format';
import { isImportActive, skippedReportUrl, useActiveImports, useListImport } from './lists.queries';

const STATUS_BADGES = {
  queued: { label: 'Queued', color: 'gray' },
  running: { label: 'Importing', color: 'blue' },
  finished: { label: 'Finished', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
} as const;

const percentRead = (listImport: TListImport) =>
  listImport.bytes_total > 0 ? Math.min(100, Math.round((listImport.bytes_read / listImport.bytes_total) * 100)) : 0;

/** What the bar says in words, for people who do not read bars. */
const stageText = (listImport: TListImport) => {
  if (listImport.status === 'queued') return 'Waiting to start…';
  if (listImport.status === 'running' && listImport.stage === 'reading') {
    return `Reading ${formatSize(listImport.bytes_read)} of ${formatSize(listImport.bytes_total)} (${percentRead(listImport)}%)`;
  }
  if (listImport.status === 'running') return 'Saving members…';
  return null;
};

const ImportBar = ({ listImport }: { listImport: TListImport }) => {
  const label = `Import progress of ${listImport.file_name}`;
  switch (listImport.status) {
    case 'queued':
      return <Progress value={100} color="gray" striped aria-label={label} />;
    case 'running':
      // Saving has no byte count to show; the moving stripes say it is still working.
      return listImport.stage === 'reading' ? (
        <Progress value={percentRead(listImport)} aria-label={label} />
      ) : (
        <Progress value={100} animated aria-label={label} />
      );
    case 'finished':
      return <Progress value={100} color="green" aria-label={label} />;
    case 'failed':
      return <Progress value={percentRead(listImport)} color="red" aria-label={label} />;
  }
};

const Count = ({ label, value }: { label: string; value: number }) => (
  <Stack gap={0}>
    <Text size="xs" c="dimmed">
      {label}
    </Text>
    <Text size="sm" fw={600}>
      {formatCount(value)}
    </Text>
  </Stack>
);

/** One import's progress, live: realtime events and a 2-second poll keep it current. */
export const ImportProgress = ({ listImport: initial }: { listImport: TListImport }) => {
  const { data: listImport } = useListImport(initial);
  const badge = STATUS_BADGES[listImport.status];
  const stage = stageText(listImport);
  const reasons = Object.entries(listImport.skipped_reasons).filter(([, count]) => count > 0);

  return (
    <Stack gap="xs" data-testid={`import-${listImport.id}`}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" fw={600} truncate>
          {listImport.file_name}
        </Text>
        <Badge color={badge.color} variant="light" tt="none">
          {badge.label}
        </Badge>
      </Group>
      <ImportBar listImport={listImport} />
      {stage && (
        <Text size="xs" c="dimmed" aria-live="polite">
          {stage}
        </Text>
      )}
      <Group gap="xl">
        <Count label="Rows read" value={listImport.rows_read} />
        <Count label="Added" value={listImport.added} />
        <Count label="Updated" value={listImport.updated} />
        <Count label="Skipped" value={listImport.skipped} />
        <Count label="Duplicates" value={listImport.duplicates} />
      </Group>
      {listImport.status === 'finished' && (
        <Alert color="green" icon={<IconCircleCheck size={18} />} title="Success">
          {formatCount(listImport.added)} added, {formatCount(listImport.updated)} updated,{' '}
          {formatCount(listImport.skipped)} skipped and {formatCount(listImport.duplicates)} duplicate rows in{' '}
          {listImport.list_address}.
        </Alert>
      )}
      {listImport.status === 'failed' && (
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="Warning">
          {listImport.error ?? 'The import stopped.'}
        </Alert>
      )}
      {reasons.length > 0 && (
        <Text size="xs" c="dimmed">
          Skipped: {reasons.map(([reason, count]) => `${reason} (${formatCount(count)})`).join(', ')}
        </Text>
      )}
      {listImport.has_report && (
        <Anchor href={skippedReportUrl(listImport.id)} download size="sm">
          <Group gap={4} component="span" wrap="nowrap">
            <IconDownload size={14} aria-hidden />
            Download the skipped rows (CSV)
          </Group>
        </Anchor>
      )}
    </Stack>
  );
};

const ImportProgressCard = ({ listImport, onDismiss }: { listImport: TListImport; onDismiss: () => void }) => (
  <Paper withBorder p="md" aria-label={`Import into ${listImport.list_address}`} component="section">
    <Group justify="space-between" align="flex-start" mb="xs" wrap="nowrap">
      <Text size="sm">
        Import into <strong>{listImport.list_address}</strong>
      </Text>
      {!isImportActive(listImport) && <CloseButton size="sm" aria-label="Dismiss" onClick={onDismiss} />}
    </Group>
    <ImportProgress listImport={listImport} />
  </Paper>
);

/**
 * Imports running now or finished in the last hour, so a user who left the page finds their
 * import where they left it. `listId` shows only that list's.
 */
export const ActiveImports = ({ listId }: { listId?: number }) => {
  const imports = useActiveImports();
  const [dismissed, setDismissed] = useState<number[]>([]);
  const shown = (imports.data ?? []).filter(
    (listImport) => !dismissed.includes(listImport.id) && (listId === undefined || listImport.list_id === listId),
  );
  if (shown.length === 0) return null;
  return (
    <Stack gap="sm" mb="lg">
      {shown.map((listImport) => (
        <ImportProgressCard
          key={listImport.id}
          listImport={listImport}
          onDismiss={() => setDismissed((ids) => [...ids, listImport.id])}
        />
      ))}
    </Stack>
  );
};
