import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Modal,
  NativeSelect,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  CAMPAIGN_MESSAGES,
  overviewPercentages,
  RECIPIENT_FILTERS,
  type TCampaignEmail,
  type TCampaignGeneral,
  type TCampaignMember,
  waitText,
} from '@sendwell/contracts';
import { IconPencil, IconPlayerPause, IconPlayerPlay, IconShieldExclamation, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, Fragment, useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { fieldErrors, showError } from '../../app/errors';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { readDocument } from '../../components/email-editor/blocks';
import { LazyEmailEditor } from '../../components/email-editor/LazyEmailEditor';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { TableScroller } from '../../components/TableScroller';
import { PREVIEW_CSP } from '../send-email/send-email.preview';
import { STATUS_LOOK } from './campaign-status';
import {
  campaignKeys,
  membersUrl,
  useCampaignEmails,
  useCampaignGeneral,
  useCampaignMutation,
  useCampaignOverview,
  useCampaignVariables,
  useRecipientHistory,
  useSetCampaignStatus,
} from './campaigns.queries';
import { checkSequence, newDripKey, SequenceEditor, type TSequenceForm, useSequenceErrors } from './SequenceEditor';

const TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'mails', label: 'E-Mails' },
  { value: 'members', label: 'Recipients' },
  { value: 'settings', label: 'Settings' },
] as const;

/** A radial gauge of a whole-number percentage. */
const Gauge = ({ label, percent, color }: { label: string; percent: number; color: string }) => {
  const size = 120;
  const stroke = 12;
  const radius = (size - stroke) / 2;
  const circumference = 2 * Math.PI * radius;
  return (
    <Card withBorder>
      <Stack align="center" gap={4}>
        <div
          role="img"
          aria-label={`${label}: ${percent}%`}
          style={{ position: 'relative', width: size, height: size }}
        >
          <svg width={size} height={size} aria-hidden>
            <circle
              cx={size / 2}
              cy={size / 2}
              r={radius}
              fill="none"
              stroke="var(--mantine-color-gray-2)"
              strokeWidth={stroke}
            />
            <circle
              cx={size / 2}
              cy={size / 2}
              r={radius}
              fill="none"
              stroke={color}
              strokeWidth={stroke}
              strokeDasharray={`${(percent / 100) * circumference} ${circumference}`}
              transform={`rotate(-90 ${size / 2} ${size / 2})`}
            />
          </svg>
          <Center style={{ position: 'absolute', inset: 0 }} aria-hidden>
            <Text fw={700} fz="xl">
              {percent}%
            </Text>
          </Center>
        </div>
        <Text fw={600}>{label}</Text>
      </Stack>
    </Card>
  );
};

const Overview = ({ id }: { id: number }) => {
  const overview = useCampaignOverview(id);
  if (!overview.data) return <Loader aria-label="Loading the overview" />;
  const counts = overview.data;
  const percent = overviewPercentages(counts);
  const totals = [
    ['Recipients', counts.recipients, null],
    ['Sent', counts.sent, percent.sent],
    ['Opened', counts.opened, percent.opened],
    ['Clicked', counts.clicked, percent.clicked],
    ['Bounced', counts.bounced, percent.bounced],
    ['Unsubscribed', counts.unsubscribed, percent.unsubscribed],
  ] as const;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Gauge label="Delivered" percent={percent.delivered} color="var(--mantine-color-green-text)" />
        <Gauge label="Opened" percent={percent.opened} color="var(--mantine-color-blue-text)" />
        <Gauge label="Bounced" percent={percent.bounced} color="var(--mantine-color-red-text)" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="campaign-totals">
        {totals.map(([label, value, share]) => (
          <Card withBorder key={label}>
            <Text size="sm" c="dimmed">
              {label}
            </Text>
            <Text fw={700} fz="xl">
              {value.toLocaleString('en-US')}
            </Text>
            {share !== null && <Text size="sm">{share}%</Text>}
          </Card>
        ))}
      </SimpleGrid>
      {counts.queued > 0 && (
        <Text size="sm" c="dimmed">
          {counts.queued.toLocaleString('en-US')} handed to your sending account and on their way.
        </Text>
      )}
    </Stack>
  );
};

const framed = (html: string) => `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">${html}`;

const toForm = (emails: TCampaignEmail[], dailyPlan: TCampaignGeneral['dailyPlan']): TSequenceForm => ({
  drips: emails.map((email) => ({
    key: newDripKey(),
    id: email.id,
    subject: email.subject,
    body: email.body,
    bodyDocument: readDocument(email.body_document),
    replyTo: email.reply_to,
    globalReply: email.global_reply,
    period: email.period,
    frequency: email.frequency,
    followUp: email.follow_up
      ? {
          waitDays: email.follow_up.waitDays ?? 5,
          subject: email.follow_up.subject,
          body: email.follow_up.body,
          document: readDocument(email.follow_up.document),
        }
      : null,
    clickFollowUp: email.click_follow_up
      ? {
          waitDays: email.click_follow_up.waitDays ?? 1,
          link: email.click_follow_up.link ?? '',
          subject: email.click_follow_up.subject,
          body: email.click_follow_up.body,
          document: readDocument(email.click_follow_up.document),
        }
      : null,
  })),
  dailyPlan,
});

const Mails = ({ id, variables }: { id: number; variables: string[] }) => {
  const emails = useCampaignEmails(id);
  const save = useCampaignMutation('saveEmails');
  const [isWarning, setIsWarning] = useState(false);
  const [editing, setEditing] = useState<TSequenceForm | null>(null);
  const edit = useCallback(
    (update: (previous: TSequenceForm) => TSequenceForm) => setEditing((previous) => previous && update(previous)),
    [],
  );
  const [errors, setErrors] = useSequenceErrors(editing);
  const [open, setOpen] = useState<number | null>(null);
  if (!emails.data) return <Loader aria-label="Loading the emails" />;
  if (editing) {
    return (
      <Stack>
        <SequenceEditor value={editing} errors={errors} variables={variables} onChange={edit} />
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setEditing(null)}>
            Cancel
          </Button>
          <Button
            loading={save.isPending}
            onClick={() => {
              const checked = checkSequence(editing);
              setErrors(checked.errors, editing);
              if (!checked.ok) return;
              save.mutate(
                { id, body: { emails: checked.body.drips, dailyPlan: checked.body.dailyPlan } },
                {
                  onSuccess: ({ message }) => {
                    notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
                    setEditing(null);
                  },
                  onError: (error) => {
                    const fields = fieldErrors(error);
                    if (Object.keys(fields).length > 0) setErrors(fields, editing);
                    else showError(error);
                  },
                },
              );
            }}
          >
            Save Sequence
          </Button>
        </Group>
      </Stack>
    );
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
              <Table.Th ta="right">SENT</Table.Th>
              <Table.Th ta="right">QUEUED</Table.Th>
              <Table.Th ta="right">DELIVERED</Table.Th>
              <Table.Th ta="right">OPENED</Table.Th>
              <Table.Th ta="right">CLICKED</Table.Th>
              <Table.Th ta="right">BOUNCED</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {emails.data.emails.map((email) => (
              <Fragment key={email.id}>
                <Table.Tr>
                  <Table.Td>
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      aria-expanded={open === email.id}
                      onClick={() => setOpen(open === email.id ? null : email.id)}
                    >
                      Email # {email.order}
                    </Button>
                  </Table.Td>
                  <Table.Td ta="right">{email.sent_count}</Table.Td>
                  <Table.Td ta="right">{email.queued_count}</Table.Td>
                  <Table.Td ta="right">{email.delivered_count}</Table.Td>
                  <Table.Td ta="right">{email.opened_count}</Table.Td>
                  <Table.Td ta="right">{email.clicked_count}</Table.Td>
                  <Table.Td ta="right">{email.bounced_count}</Table.Td>
                </Table.Tr>
                {open === email.id && (
                  <Table.Tr>
                    <Table.Td colSpan={7}>
                      <Stack gap={4}>
                        <Text size="sm">
                          <strong>Subject:</strong> {email.subject}
                        </Text>
                        <Text size="sm">
                          <strong>Sent:</strong>{' '}
                          {email.first
                            ? 'first'
                            : `${waitText(email.period, email.frequency)} after the previous email`}
                        </Text>
                        {email.follow_up && (
                          <Text size="sm">
                            <strong>If not opened in {email.follow_up.waitDays} days:</strong> {email.follow_up.subject}
                          </Text>
                        )}
                        {email.click_follow_up && (
                          <Text size="sm">
                            <strong>
                              {email.click_follow_up.waitDays} days after a click on{' '}
                              {email.click_follow_up.link || 'any link'}:
                            </strong>{' '}
                            {email.click_follow_up.subject}
                          </Text>
                        )}
                        <iframe
                          title={`Body of email ${email.order}`}
                          sandbox=""
                          srcDoc={framed(email.body)}
                          style={{ width: '100%', height: 160, border: 0, background: 'white' }}
                        />
                      </Stack>
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
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
                setEditing(toForm(emails.data.emails, emails.data.dailyPlan));
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

const History = ({ recipient }: { recipient: TCampaignMember }) => {
  const history = useRecipientHistory(recipient.id);
  const formatDateTime = useFormatDateTime();
  if (!history.data) return <Loader size="sm" aria-label="Loading the history" />;
  if (history.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Nothing sent yet
        {recipient.due_at ? `; email ${recipient.next_position} is due ${formatDateTime(recipient.due_at)}.` : '.'}
      </Text>
    );
  }
  return (
    <Table fz="sm" aria-label={`History of ${recipient.email}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Event</Table.Th>
          <Table.Th>When</Table.Th>
          <Table.Th>Email</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {history.data.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: events in order
          <Table.Tr key={index}>
            <Table.Td>
              <Badge
                variant="light"
                color={item.event_type === 'failed' ? 'red' : item.event_type === 'queued' ? 'blue' : 'green'}
              >
                {item.event_type}
              </Badge>
            </Table.Td>
            <Table.Td>{formatDateTime(item.created_at)}</Table.Td>
            <Table.Td>
              #{item.order}: {item.subject}
              {item.message && (
                <Text size="xs" c="dimmed">
                  {item.message}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
};

const Members = ({ id, variables }: { id: number; variables: string[] }) => {
  const formatDateTime = useFormatDateTime();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const setStatus = useCampaignMutation('recipientStatus');
  const remove = useCampaignMutation('deleteRecipients');
  const custom = variables.filter((name) => name !== 'email' && name !== 'name');
  const columns: TDataTableColumn<TCampaignMember>[] = [
    {
      key: 'status',
      title: 'Running',
      render: (member) => (
        <Switch
          aria-label={`${member.status ? 'Pause' : 'Resume'} ${member.email}`}
          checked={member.status}
          disabled={member.state !== 'active'}
          onChange={(event) =>
            setStatus.mutate(
              { id, body: { emailId: member.id, status: event.currentTarget.checked } },
              {
                onSuccess: () => void queryClient.invalidateQueries({ queryKey: campaignKeys.members(id) }),
                onError: showError,
              },
            )
          }
        />
      ),
    },
    { key: 'email', title: 'Email', sortable: true },
    { key: 'name', title: 'Name' },
    {
      key: 'state',
      title: 'State',
      render: (member) =>
        member.state === 'stopped' ? (
          <Badge variant="light" color="red">
            stopped: {member.stop_reason}
          </Badge>
        ) : member.state === 'done' ? (
          <Badge variant="light" color="teal">
            done
          </Badge>
        ) : (
          <Text size="sm">next: email {member.next_position}</Text>
        ),
    },
    { key: 'created_at', title: 'Added on', sortable: true, render: (member) => formatDateTime(member.created_at) },
    ...custom.map((name) => ({
      key: `var-${name}`,
      title: name,
      render: (member: TCampaignMember) =>
        member.variables.find((variable) => variable.field_key === name)?.field_value ?? '',
    })),
  ];
  return (
    <DataTable<TCampaignMember>
      label="Recipients of the campaign"
      queryKey={campaignKeys.members(id)}
      url={membersUrl(id)}
      columns={columns}
      rowKey={(member) => member.id}
      defaultSort={{ column: 'email', order: 'asc' }}
      defaultPerPage={20}
      filters={{ filter }}
      selectable
      renderExpanded={(member) => <History recipient={member} />}
      toolbar={({ selectedIds, clearSelection }) => (
        <Group gap="xs" align="flex-end">
          <NativeSelect
            size="xs"
            label="Show"
            value={filter}
            onChange={(event) => setFilter(event.currentTarget.value)}
            data={[{ value: '', label: 'All' }, ...RECIPIENT_FILTERS.map((value) => ({ value, label: value }))]}
          />
          <Button
            size="xs"
            color="red.9"
            leftSection={<IconTrash size={14} aria-hidden />}
            disabled={selectedIds.length === 0}
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { id, body: { recipients: selectedIds.map(Number) } },
                {
                  onSuccess: ({ message }) => {
                    notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
                    clearSelection();
                  },
                  onError: () => showError(new Error(CAMPAIGN_MESSAGES.removeFailed)),
                },
              )
            }
          >
            Delete selected
          </Button>
        </Group>
      )}
    />
  );
};

const Settings = ({ campaign }: { campaign: TCampaignGeneral }) => {
  const save = useCampaignMutation('saveSettings');
  const isNameOnly = campaign.provider === 'smtp' || campaign.provider === 'google';
  const [values, setValues] = useState({
    title: campaign.title,
    from: campaign.sender_name,
    alias: campaign.alias,
    signature: campaign.signature,
    signatureDocument: readDocument(campaign.signature_document),
    mailPerDay: campaign.mail_per_day,
    mailPerDelay: campaign.mail_per_delay,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { id: campaign.id, body: { ...values, ...(isNameOnly ? {} : { alias: values.alias }) } },
      {
        onSuccess: ({ message }) => {
          setErrors({});
          notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
        },
        onError: (error) => {
          const fields = fieldErrors(error);
          if (Object.keys(fields).length > 0) setErrors(fields);
          else showError(error);
        },
      },
    );
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Campaign settings">
      <Paper withBorder p="md" radius="md">
        <Stack>
          <TextInput
            label="Title"
            required
            value={values.title}
            error={errors.title}
            onChange={(event) => setValues({ ...values, title: event.currentTarget.value })}
          />
          <TextInput
            label="Sender Name"
            required={isNameOnly}
            value={values.from}
            error={errors.senderName ?? errors.from}
            onChange={(event) => setValues({ ...values, from: event.currentTarget.value })}
          />
          {!isNameOnly && (
            <Group align="flex-end" gap={4} wrap="nowrap">
              <TextInput
                label="Alias"
                required
                value={values.alias}
                error={errors.alias}
                onChange={(event) => setValues({ ...values, alias: event.currentTarget.value })}
                style={{ flex: 1 }}
              />
              <Text pb={8}>@{campaign.domain}</Text>
            </Group>
          )}
          <LazyEmailEditor
            id="campaign-signature"
            label="Signature"
            isFragment
            value={{ html: values.signature, document: values.signatureDocument }}
            onChange={(content) =>
              setValues({ ...values, signature: content.html, signatureDocument: content.document })
            }
          />
          <Group grow>
            <NumberInput
              label="Mail Per Day"
              required
              min={1}
              max={campaign.account_limit ?? 100_000}
              description={
                campaign.account_limit ? `At most ${campaign.account_limit}: the account's limit.` : undefined
              }
              value={values.mailPerDay}
              error={errors.mailPerDay}
              onChange={(value) => setValues({ ...values, mailPerDay: Number(value) || 0 })}
            />
            <NumberInput
              label="Mail Per Delay (Min 120 sec)"
              required
              min={120}
              value={values.mailPerDelay}
              error={errors.mailPerDelay}
              onChange={(value) => setValues({ ...values, mailPerDelay: Number(value) || 0 })}
            />
          </Group>
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </Paper>
    </form>
  );
};

/** A campaign (spec §2 campaign view): Overview, E-Mails, Recipients, Settings, and its start/stop. */
export const CampaignPage = () => {
  const { id: idParam, tab } = useParams();
  const id = Number(idParam);
  const navigate = useNavigate();
  const general = useCampaignGeneral(id);
  const variables = useCampaignVariables(id);
  const setStatus = useSetCampaignStatus();
  const current = TABS.find((candidate) => candidate.value === tab)?.value ?? 'overview';
  const campaign = general.data;
  return (
    <>
      <PageHeader
        title={campaign?.title ?? 'Campaign'}
        description={campaign ? `From ${campaign.from} · ${campaign.account_name ?? 'no account'}` : undefined}
        actions={
          campaign && !campaign.is_draft ? (
            <>
              <Badge variant="light" color={STATUS_LOOK[campaign.state].color} size="lg" data-testid="campaign-state">
                {STATUS_LOOK[campaign.state].label}
              </Badge>
              {/* A finished campaign has nobody left to send to: nothing to stop or start. */}
              {campaign.state !== 'finished' && (
                <Button
                  variant={campaign.status ? 'default' : 'filled'}
                  leftSection={
                    campaign.status ? (
                      <IconPlayerPause size={16} aria-hidden />
                    ) : (
                      <IconPlayerPlay size={16} aria-hidden />
                    )
                  }
                  loading={setStatus.isPending}
                  onClick={() =>
                    setStatus.mutate(
                      { id, status: !campaign.status },
                      {
                        onSuccess: ({ message }) =>
                          notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' }),
                        onError: showError,
                      },
                    )
                  }
                >
                  {campaign.status ? 'Stop' : 'Start'}
                </Button>
              )}
            </>
          ) : null
        }
      />
      {general.isError && (
        <LoadFailedAlert title="This campaign could not be loaded" onRetry={() => void general.refetch()} />
      )}
      {campaign?.breaker_reason && !campaign.status && (
        <Alert
          color="orange"
          mb="md"
          icon={<IconShieldExclamation size={18} aria-hidden />}
          title="Stopped by Sendwell to protect your sender"
          data-testid="breaker-reason"
        >
          {campaign.breaker_reason} Start it again to go on anyway.
        </Alert>
      )}
      {campaign?.is_draft && (
        <Alert color="orange" mb="md">
          This campaign is not saved yet. <Link to={`/campaigns/continue/${id}`}>Continue it</Link>.
        </Alert>
      )}
      {campaign && (
        <Tabs value={current} onChange={(value) => navigate(`/campaigns/detail/${id}/${value}`)} keepMounted={false}>
          <Tabs.List mb="md">
            {TABS.map((candidate) => (
              <Tabs.Tab key={candidate.value} value={candidate.value}>
                {candidate.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="overview">
            <Overview id={id} />
          </Tabs.Panel>
          <Tabs.Panel value="mails">
            <Mails id={id} variables={variables.data ?? ['email', 'name']} />
          </Tabs.Panel>
          <Tabs.Panel value="members">
            <Members id={id} variables={variables.data ?? []} />
          </Tabs.Panel>
          <Tabs.Panel value="settings">
            <Settings campaign={campaign} />
          </Tabs.Panel>
        </Tabs>
      )}
    </>
  );
};
