import { Alert, Badge, Button, Tabs } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { TCampaignGeneral } from '@sendwell/contracts';
import { IconPlayerPause, IconPlayerPlay, IconShieldExclamation } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { showError } from '../../app/errors';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { STATUS_LOOK } from './campaign-status';
import { useCampaignGeneral, useCampaignVariables, useSetCampaignStatus } from './campaigns.queries';
import { EmailsTab } from './EmailsTab';
import { ErrorsTab } from './ErrorsTab';
import { OverviewTab } from './OverviewTab';
import { RecipientsTab } from './RecipientsTab';
import { SettingsTab } from './SettingsTab';

const TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'mails', label: 'E-Mails' },
  { value: 'members', label: 'Recipients' },
  { value: 'settings', label: 'Settings' },
  { value: 'errors', label: 'Errors' },
] as const;
type TTab = (typeof TABS)[number]['value'];

/** The spec's linked paths (`/campaign-view/overview`, `/mail-chain`…) as names of today's tabs. */
const TAB_ALIASES: Record<string, TTab> = { 'mail-chain': 'mails' };

/** The tab an address names: its own, an alias, or the overview (`/drip-campaign/campaign/{id}/detail`). */
const tabOf = (name: string | undefined): TTab =>
  TABS.find((candidate) => candidate.value === name)?.value ?? TAB_ALIASES[name ?? ''] ?? 'overview';

/** The campaign's state, and Start or Stop while anyone is left to send to. */
const StartStop = ({ campaign }: { campaign: TCampaignGeneral }) => {
  const setStatus = useSetCampaignStatus();
  return (
    <>
      <Badge variant="light" color={STATUS_LOOK[campaign.state].color} size="lg" data-testid="campaign-state">
        {STATUS_LOOK[campaign.state].label}
      </Badge>
      {/* A finished campaign has nobody left to send to: nothing to stop or start. */}
      {campaign.state !== 'finished' && (
        <Button
          variant={campaign.status ? 'default' : 'filled'}
          leftSection={
            campaign.status ? <IconPlayerPause size={16} aria-hidden /> : <IconPlayerPlay size={16} aria-hidden />
          }
          loading={setStatus.isPending}
          onClick={() =>
            setStatus.mutate(
              { id: campaign.id, status: !campaign.status },
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
  );
};

/**
 * A campaign (spec §2 campaign view): Overview, E-Mails, Recipients, Settings, the linked
 * Errors page, and its start/stop.
 */
export const CampaignPage = () => {
  const { id: idParam, tab } = useParams();
  const id = Number(idParam);
  const navigate = useNavigate();
  const general = useCampaignGeneral(id);
  const variables = useCampaignVariables(id);
  const current = tabOf(tab);
  const campaign = general.data;
  return (
    <>
      <PageHeader
        title={campaign?.title ?? 'Campaign'}
        description={campaign ? `From ${campaign.from} · ${campaign.account_name ?? 'no account'}` : undefined}
        actions={campaign && !campaign.is_draft ? <StartStop campaign={campaign} /> : null}
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
            <OverviewTab id={id} />
          </Tabs.Panel>
          <Tabs.Panel value="mails">
            <EmailsTab id={id} variables={variables.data ?? ['email', 'name']} />
          </Tabs.Panel>
          <Tabs.Panel value="members">
            <RecipientsTab id={id} variables={variables.data ?? []} />
          </Tabs.Panel>
          <Tabs.Panel value="settings">
            <SettingsTab campaign={campaign} />
          </Tabs.Panel>
          <Tabs.Panel value="errors">
            <ErrorsTab id={id} />
          </Tabs.Panel>
        </Tabs>
      )}
    </>
  );
};
