import { Alert, Badge, Group, Text } from '@mantine/core';
import type { TCampaignFailure, TPaged } from '@sendwell/contracts';
import { IconShieldExclamation } from '@tabler/icons-react';
import { useFormatDateTime } from '../../app/dates';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { campaignKeys, errorsUrl } from './campaigns.queries';

type TErrors = TPaged<TCampaignFailure> & {
  stopped: { reason: string; count: number }[];
  breaker_reason: string | null;
};

/** What a failed message was, after its step's number: the step's own, or its unopened or click step. */
const KIND_LABELS: Record<TCampaignFailure['kind'], string> = {
  step: '',
  'follow-up': ' (if not opened)',
  'click-follow-up': ' (after a click)',
};

/**
 * The campaign's errors page (the spec's linked `/errors`): the messages that failed, to whom and
 * why in the receiving server's own words; the recipients stopped before their last email; and
 * why Sendwell's circuit breaker stopped the campaign, while it is stopped.
 */
export const ErrorsTab = ({ id }: { id: number }) => {
  const formatDateTime = useFormatDateTime();
  const columns: TDataTableColumn<TCampaignFailure>[] = [
    { key: 'email', title: 'Recipient', sortable: true },
    {
      key: 'order',
      title: 'Email',
      render: (failure) => `#${failure.order}${KIND_LABELS[failure.kind]}: ${failure.subject}`,
    },
    { key: 'reason', title: 'Reason', render: (failure) => failure.reason ?? 'No reason was given.' },
    { key: 'failed_at', title: 'When', sortable: true, render: (failure) => formatDateTime(failure.failed_at) },
  ];
  return (
    <DataTable<TCampaignFailure, TErrors>
      label="Failed emails of the campaign"
      queryKey={campaignKeys.errors(id)}
      url={errorsUrl(id)}
      columns={columns}
      defaultSort={{ column: 'failed_at', order: 'desc' }}
      defaultPerPage={20}
      emptyText="No email of this campaign has failed."
      toolbar={({ response }) => (
        <Group gap="xs" wrap="wrap">
          {response?.breaker_reason && (
            <Alert
              color="orange"
              icon={<IconShieldExclamation size={18} aria-hidden />}
              title="Stopped by Sendwell to protect your sender"
              data-testid="errors-breaker"
            >
              {response.breaker_reason}
            </Alert>
          )}
          <Text size="sm" data-testid="stopped-recipients">
            {response && response.stopped.length > 0 ? 'Recipients stopped:' : 'No recipient was stopped.'}
          </Text>
          {response?.stopped.map((row) => (
            <Badge key={row.reason} variant="light" color="red">
              {row.reason}: {row.count.toLocaleString('en-US')}
            </Badge>
          ))}
        </Group>
      )}
    />
  );
};
