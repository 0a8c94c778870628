import { Button, Group, Loader, Modal, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { CAMPAIGN_MESSAGES, stepOfEmail, type TCampaignEmail, waitText } from '@sendwell/contracts';
import { IconPencil } from '@tabler/icons-react';
import { useState } from 'react';
import { PreviewFrame } from '../../components/PreviewFrame';
import { TableScroller } from '../../components/TableScroller';
import { useCampaignEmails, useCampaignMutation } from './campaigns.queries';
import { SequenceEditor } from './SequenceEditor';
import { sequenceFormOf, type TSequenceForm, useSequenceForm } from './sequence-form';

const COUNTS = [
  ['SENT', 'sent_count'],
  ['QUEUED', 'queued_count'],
  ['DELIVERED', 'delivered_count'],
  ['OPENED', 'opened_count'],
  ['CLICKED', 'clicked_count'],
  ['BOUNCED', 'bounced_count'],
] as const;

/** Edit Sequence on a saved campaign: the editor on the form hook, saved as a whole. */
const EditSequence = ({
  id,
  initialValues,
  variables,
  onDone,
}: {
  id: number;
  initialValues: TSequenceForm;
  variables: string[];
  onDone: () => void;
}) => {
  const save = useCampaignMutation('saveEmails');
  const form = useSequenceForm({
    initialValues,
    requestField: 'emails',
    onSubmit: (body, fail) =>
      save.mutate(
        { id, body: { emails: body.drips, dailyPlan: body.dailyPlan } },
        {
          onSuccess: ({ message }) => {
            notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
            onDone();
          },
          onError: fail,
        },
      ),
  });
  return (
    <Stack>
      <SequenceEditor value={form.values} errors={form.errors} variables={variables} onChange={form.setValues} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button loading={save.isPending} onClick={() => form.onSubmit()}>
          Save Sequence
        </Button>
      </Group>
    </Stack>
  );
};

/** One step's row, and under it (expanded) its subject, when it goes, its unopened and click steps and its body. */
const EmailRow = ({ email, isOpen, onToggle }: { email: TCampaignEmail; isOpen: boolean; onToggle: () => void }) => (
  <>
    <Table.Tr>
      <Table.Td>
        <Button variant="subtle" size="compact-sm" aria-expanded={isOpen} onClick={onToggle}>
          Email # {email.order}
        </Button>
      </Table.Td>
      {COUNTS.map(([title, field]) => (
        <Table.Td key={title} ta="right">
          {email[field]}
        </Table.Td>
      ))}
    </Table.Tr>
    {isOpen && (
      <Table.Tr>
        <Table.Td colSpan={COUNTS.length + 1}>
          <Stack gap={4}>
            <Text size="sm">
              <strong>Subject:</strong> {email.subject}
            </Text>
            <Text size="sm">
              <strong>Sent:</strong>{' '}
              {email.first ? 'first' : `${waitText(email.period, email.frequency)} after the previous email`}
            </Text>
            {email.follow_up && (
              <Text size="sm">
                <strong>If not opened in {email.follow_up.waitDays} days:</strong> {email.follow_up.subject}
              </Text>
            )}
            {email.click_follow_up && (
              <Text size="sm">
                <strong>
                  {email.click_follow_up.waitDays} days after a click on {email.click_follow_up.link || 'any link'}:
                </strong>{' '}
                {email.click_follow_up.subject}
              </Text>
            )}
            <PreviewFrame title={`Body of email ${email.order}`} html={email.body} height={160} />
          </Stack>
        </Table.Td>
      </Table.Tr>
    )}
  </>
);

/**
 * The E-Mails tab (spec §2): each email with its counts, expandable; Edit Sequence behind the
 * spec's warning, the editor in place of the list until saved or cancelled.
 */
export const EmailsTab = ({ id, variables }: { id: number; variables: string[] }) => {
  const emails = useCampaignEmails(id);
  const [isWarning, setIsWarning] = useState(false);
  const [editing, setEditing] = useState<TSequenceForm | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  if (!emails.data) return <Loader aria-label="Loading the emails" />;
  if (editing) {
    return <EditSequence id={id} initialValues={editing} variables={variables} onDone={() => setEditing(null)} />;
  }
  return (
    <Stack>
      <Group justify="flex-end">
        <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setIsWarning(true)}>
          Edit Sequence
        </Button>
      </Group>
      <TableScroller label="Emails of the campaign">
        <Table striped withTableBorder aria-label="Emails of the campaign">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              {COUNTS.map(([title]) => (
                <Table.Th key={title} ta="right">
                  {title}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {emails.data.emails.map((email) => (
              <EmailRow
                key={email.id}
                email={email}
                isOpen={open === email.id}
                onToggle={() => setOpen(open === email.id ? null : email.id)}
              />
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      <Modal opened={isWarning} onClose={() => setIsWarning(false)} title="Edit the sequence?" centered>
        <Stack>
          <Text size="sm">{CAMPAIGN_MESSAGES.editWarning}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setIsWarning(false)}>
              Cancel
            </Button>
            <Button
              data-autofocus
              onClick={() => {
                setIsWarning(false);
                setEditing(sequenceFormOf(emails.data.emails.map(stepOfEmail), emails.data.dailyPlan));
              }}
            >
              Continue
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
};
