import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { openSuccessDialog } from '../../app/dialogs';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { Loading } from '../../components/QueryStatus';
import { useScheduledAction, useScheduledEditData } from './history.queries';
import { isActionAllowed, SCHEDULED_ACTIONS, STATUS_LABELS, type TScheduledAction } from './scheduled-actions';

const STATUS_COLORS = { 0: 'blue', 1: 'green', 2: 'gray' } as const;

const BackLink = () => (
  <Anchor component={Link} to="/scheduled-mails" size="sm">
    Back to Scheduled Emails
  </Anchor>
);

/**
 * The spec's linked paths of a scheduled email's actions (`/scheduled-mails/cancel/{id}`,
 * `…/cancel/{id}/remove-cancel`, `/scheduled-mails/delete/{id}`) as pages: the email, what
 * the action does, and a confirm; then the action, 'Success!' with OK, and back to the list.
 * An action its status does not allow says why instead.
 */
const ScheduledActionPage = ({ action }: { action: TScheduledAction }) => {
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const formatDateTime = useFormatDateTime();
  const data = useScheduledEditData(id);
  const act = useScheduledAction();
  const words = SCHEDULED_ACTIONS[action];
  const record = data.data?.record;

  const confirm = () =>
    act.mutate(
      { action, id },
      { onSuccess: ({ message }) => openSuccessDialog(message, { onClose: () => navigate('/scheduled-mails') }) },
    );

  return (
    <>
      <PageHeader title={words.page} description={record ? `“${record.subject}”` : undefined} />
      {data.isPending && <Loading label="Loading the scheduled email" py="xl" />}
      {data.isError &&
        (data.error instanceof ApiError && data.error.status === 404 ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="This scheduled email does not exist">
            <BackLink />
          </Alert>
        ) : (
          <LoadFailedAlert title="The scheduled email could not be loaded" onRetry={() => void data.refetch()} />
        ))}
      {record && (
        <Paper withBorder p="md" maw={640}>
          <Stack>
            <Table variant="vertical" withTableBorder layout="fixed" aria-label="The scheduled email">
              <Table.Tbody>
                <Table.Tr>
                  <Table.Th w={130}>Subject</Table.Th>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{record.subject}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>To</Table.Th>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{record.to || '—'}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>Delivery time</Table.Th>
                  <Table.Td>{record.delivery_time ? formatDateTime(record.delivery_time) : '—'}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>Status</Table.Th>
                  <Table.Td>
                    <Badge variant="light" color={STATUS_COLORS[record.status]}>
                      {STATUS_LABELS[record.status]}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
            {isActionAllowed(action, record.status) ? (
              <>
                <Text fw={600}>{words.title}</Text>
                <Text size="sm">{words.text}</Text>
                <Group justify="flex-end">
                  <Button component={Link} to="/scheduled-mails" variant="default">
                    Back
                  </Button>
                  <Button color={action === 'delete' ? 'red.9' : undefined} loading={act.isPending} onClick={confirm}>
                    {words.button}
                  </Button>
                </Group>
              </>
            ) : (
              <Alert
                color="orange"
                icon={<IconAlertCircle size={18} />}
                title="Not possible now"
                data-testid="not-allowed"
              >
                <Stack gap={4}>
                  <Text size="sm">
                    {action === 'cancel'
                      ? `Only a pending email can be cancelled; this one is ${STATUS_LABELS[record.status].toLowerCase()}.`
                      : `Only a cancelled email can be scheduled again; this one is ${STATUS_LABELS[record.status].toLowerCase()}.`}
                  </Text>
                  <BackLink />
                </Stack>
              </Alert>
            )}
          </Stack>
        </Paper>
      )}
    </>
  );
};

export const ScheduledCancelPage = () => <ScheduledActionPage action="cancel" />;
export const ScheduledRemoveCancelPage = () => <ScheduledActionPage action="removeCancel" />;
export const ScheduledDeletePage = () => <ScheduledActionPage action="delete" />;
