import { Code, Text } from '@mantine/core';
import { useFormatDateTime } from '../../app/dates';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { OPERATOR_AUDIT_URL, operatorKeys } from './operator.queries';

type TAuditEntry = {
  id: number;
  operator_email: string;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: string;
};

/** Every operator action, newest first. */
export const AuditTab = () => {
  const formatDateTime = useFormatDateTime();
  const columns: TDataTableColumn<TAuditEntry>[] = [
    { key: 'created_at', title: 'When', sortable: true, render: (entry) => formatDateTime(entry.created_at) },
    { key: 'operator_email', title: 'Operator' },
    { key: 'action', title: 'Action', render: (entry) => <Code>{entry.action}</Code> },
    {
      key: 'target',
      title: 'On',
      render: (entry) => `${entry.target_type}${entry.target_id ? ` #${entry.target_id}` : ''}`,
    },
    {
      key: 'details',
      title: 'Details',
      render: (entry) => (
        <Text size="xs" c="dimmed" lineClamp={2} maw={360}>
          {Object.entries(entry.details)
            .map(([key, value]) => `${key}: ${String(value)}`)
            .join(' · ')}
        </Text>
      ),
    },
  ];
  return (
    <DataTable<TAuditEntry>
      label="Audit log"
      queryKey={operatorKeys.audit}
      url={OPERATOR_AUDIT_URL}
      columns={columns}
      defaultSort={{ column: 'created_at', order: 'desc' }}
      searchable
      emptyText="No operator actions yet."
    />
  );
};
