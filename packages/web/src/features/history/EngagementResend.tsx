import { Alert, Button, Group, Loader, Menu, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { ENGAGEMENT_AUDIENCES, ENGAGEMENT_LABELS, type TEngagementAudience } from '@sendwell/contracts';
import { IconChevronDown, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { useEngagementCount, useResendEngagement } from './history.queries';

const WHO: Record<TEngagementAudience, string> = {
  'not-opened': 'who did not open it',
  opened: 'who opened it',
  clicked: 'who clicked a link in it',
};

/**
 * Re-send by engagement (issue 31 §3) from a finished send's History page: a menu of the three
 * audiences, then a confirmation with how many it reaches (unsubscribed, bounced and
 * suppressed addresses left out by the server), a link to choose for "clicked", and a new
 * subject if the user wants one.
 */
export const EngagementResend = ({
  sendId,
  accountId,
  subject,
}: {
  sendId: number;
  accountId: number;
  subject: string;
}) => {
  const navigate = useNavigate();
  const [audience, setAudience] = useState<TEngagementAudience | null>(null);
  const [linkId, setLinkId] = useState<number | null>(null);
  const [newSubject, setNewSubject] = useState('');
  const count = useEngagementCount(sendId, audience, linkId);
  const resend = useResendEngagement(sendId);
  const close = () => {
    setAudience(null);
    setLinkId(null);
    setNewSubject('');
  };
  const reach = count.data?.count ?? 0;
  const confirm = () => {
    if (!audience) return;
    resend.mutate(
      { audience, ...(linkId ? { linkId } : {}), ...(newSubject.trim() ? { subject: newSubject.trim() } : {}) },
      {
        onSuccess: ({ message, id }) => {
          showSuccess(message, null);
          close();
          navigate(`/history/details/${accountId}/${id}`);
        },
      },
    );
  };
  return (
    <>
      <Menu position="bottom-end">
        <Menu.Target>
          <Button variant="default" rightSection={<IconChevronDown size={14} aria-hidden />}>
            Send again to…
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {ENGAGEMENT_AUDIENCES.map((option) => (
            <Menu.Item key={option} onClick={() => setAudience(option)}>
              {ENGAGEMENT_LABELS[option]}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      <Modal opened={audience !== null} onClose={close} title={audience ? ENGAGEMENT_LABELS[audience] : ''}>
        {audience && (
          <Stack>
            {audience === 'clicked' && count.data && count.data.links.length > 0 && (
              <NativeSelect
                label="Clicked"
                value={linkId ? String(linkId) : ''}
                onChange={(event) => setLinkId(event.currentTarget.value ? Number(event.currentTarget.value) : null)}
                data={[
                  { value: '', label: 'Any link' },
                  ...count.data.links.map((link) => ({
                    value: String(link.id),
                    label: `${link.url} (${link.clicked.toLocaleString('en-US')} clicked)`,
                  })),
                ]}
              />
            )}
            {count.isPending ? (
              <Group gap="xs">
                <Loader size="xs" aria-hidden />
                <Text size="sm">Counting the recipients…</Text>
              </Group>
            ) : count.isError ? (
              <Alert color="red">The recipients could not be counted. Close and try again.</Alert>
            ) : (
              <Text size="sm" data-testid="engagement-count" aria-live="polite">
                {reach === 0
                  ? `Nobody ${WHO[audience]} is left to send to.`
                  : `${reach.toLocaleString('en-US')} recipient${reach === 1 ? '' : 's'} ${WHO[audience]} will get “${subject}” again.`}{' '}
                Unsubscribed, bounced and suppressed addresses are left out.
              </Text>
            )}
            {count.data && !count.data.trackedOpens && audience !== 'clicked' && (
              <Alert color="yellow">This send did not track opens: nobody is known to have opened it.</Alert>
            )}
            <TextInput
              label="Subject"
              description="Leave it blank to keep the subject it had."
              value={newSubject}
              onChange={(event) => setNewSubject(event.currentTarget.value)}
              maxLength={998}
            />
            <DialogActions onCancel={close} isPending={resend.isPending}>
              <Button
                leftSection={<IconSend size={16} aria-hidden />}
                onClick={confirm}
                loading={resend.isPending}
                disabled={reach === 0 || count.isPending}
              >
                Send to {reach.toLocaleString('en-US')}
              </Button>
            </DialogActions>
          </Stack>
        )}
      </Modal>
    </>
  );
};
