import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { showSuccess } from '../../app/toasts';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { Loading } from '../../components/QueryStatus';
import { SendEmailForm } from '../send-email/SendEmailForm';
import { fromScheduledSend, useSendEmailContent } from '../send-email/send-email.queries';
import { useScheduledEditData, useUpdateScheduled } from './history.queries';

const STATUS_WORDS = { 0: 'pending', 1: 'sent', 2: 'cancelled' } as const;

/**
 * Edit Scheduled Email (spec §2 screen 2, `/scheduled-mails/edit/{id}`): the Send Email form
 * with the email's account, sender, lists, message, tracking and delivery time, the preview
 * beside it. Saving changes this email; it still goes out at its (new) time.
 */
export const ScheduledEditPage = () => {
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const content = useSendEmailContent();
  const data = useScheduledEditData(id);
  const update = useUpdateScheduled(id);
  const record = data.data?.record;
  const back = (
    <Anchor component={Link} to="/scheduled-mails" size="sm">
      Back to Scheduled Emails
    </Anchor>
  );
  return (
    <>
      <PageHeader
        title="Edit Scheduled Email"
        description={record ? `“${record.subject}” to ${record.to || 'its lists'}` : undefined}
        actions={
          <Button component={Link} to="/scheduled-mails" variant="default">
            Cancel
          </Button>
        }
      />
      {(content.isPending || data.isPending) && <Loading label="Loading the scheduled email" py="xl" />}
      {content.isError && (
        <LoadFailedAlert title="The Send Email form could not be loaded" onRetry={() => void content.refetch()} />
      )}
      {data.isError &&
        (data.error instanceof ApiError && data.error.status === 404 ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="This scheduled email does not exist">
            {back}
          </Alert>
        ) : (
          <LoadFailedAlert title="The scheduled email could not be loaded" onRetry={() => void data.refetch()} />
        ))}
      {record && !record.editable && (
        <Alert color="orange" icon={<IconAlertCircle size={18} />} title="This email can no longer be edited">
          <Stack gap={4}>
            <Text size="sm">
              It is {STATUS_WORDS[record.status]}: only a pending email that has not started can be changed.
            </Text>
            {back}
          </Stack>
        </Alert>
      )}
      {content.data && data.data && record?.editable && (
        <SendEmailForm
          content={content.data}
          initial={fromScheduledSend(data.data, content.data.accounts, content.data.timeZone)}
          edit={{
            isSaving: update.isPending,
            onSave: (request) =>
              update.mutate(request, {
                onSuccess: ({ message }) => {
                  showSuccess(message);
                  navigate('/scheduled-mails');
                },
                onError: (error) => {
                  // Field messages come back beside their fields through the form's own check on
                  // the next try; anything else (gone out meanwhile: 409) is said plainly.
                  const fields = error instanceof ApiError && error.status === 422 ? fieldErrors(error) : {};
                  showError(Object.keys(fields).length > 0 ? new Error(Object.values(fields).join(' ')) : error);
                },
              }),
          }}
        />
      )}
    </>
  );
};
