import { Center, Loader, Tabs } from '@mantine/core';
import { campaignsApi } from '@sendwell/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, callRoute } from '../../app/api';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { ComposeStep } from './ComposeStep';
import { campaignKeys, useDraft } from './campaigns.queries';
import { FinishStep } from './FinishStep';
import { OptionsStep } from './OptionsStep';
import { PreviewStep } from './PreviewStep';
import { RecipientsStep } from './RecipientsStep';
import { StartStep } from './StartStep';

const STEPS = [
  { key: 'start', label: 'Start', number: 1 },
  { key: 'recipients', label: 'Recipients', number: 2 },
  { key: 'compose', label: 'Compose', number: 3 },
  { key: 'preview', label: 'Preview', number: 4 },
  { key: 'options', label: 'Options', number: 5 },
  { key: 'finish', label: 'Finish', number: 6 },
] as const;
type TStepKey = (typeof STEPS)[number]['key'];

/**
 * The campaign wizard (spec §2): six tabs, each unlocked once the step before it is saved, at
 * `#/drip/<step>`; an unsaved campaign (`/campaigns/continue/{id}`) resumes at its furthest step.
 */
export const CampaignWizardPage = () => {
  const { id } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const continued = useQuery({
    queryKey: ['campaigns', 'continue', id ?? ''],
    queryFn: ({ signal }) => callRoute(campaignsApi.continue, { params: { id: Number(id) }, signal }),
    enabled: id !== undefined,
    meta: { reportErrors: false },
  });
  const key = continued.data?.temporaryKey ?? null;
  const draft = useDraft(key);
  const furthest = draft.data?.step ?? 1;
  const fromHash = STEPS.find((step) => location.hash === `#/drip/${step.key}`);
  const current = fromHash && fromHash.number <= furthest ? fromHash : (STEPS[furthest - 1] ?? STEPS[0]);
  const go = (step: TStepKey) => navigate({ hash: `/drip/${step}` });

  // A resumed campaign opens at its furthest step, once, when it first loads (later, a step
  // just saved moves the address on before the refreshed draft arrives: no bounce back).
  const hasOpened = useRef(false);
  useEffect(() => {
    if (!draft.data || hasOpened.current) return;
    hasOpened.current = true;
    if (!fromHash || fromHash.number > furthest) navigate({ hash: `/drip/${current.key}` }, { replace: true });
  }, [draft.data, fromHash, furthest, current.key, navigate]);

  const savedThen = (step: TStepKey) => async () => {
    await queryClient.invalidateQueries({ queryKey: campaignKeys.draft(key ?? '') });
    go(step);
  };

  const failed = continued.error ?? draft.error;
  const isLoading = (id !== undefined && continued.isPending) || (key !== null && draft.isPending);
  return (
    <>
      <PageHeader
        title="New Drip Campaign"
        description="A sequence of emails, each sent after the one before it, inside your sending windows."
      />
      {failed && (
        <LoadFailedAlert
          title={
            failed instanceof ApiError && failed.status === 404
              ? 'This unsaved campaign does not exist any more.'
              : 'The campaign could not be loaded'
          }
          onRetry={() => void (continued.error ? continued.refetch() : draft.refetch())}
        />
      )}
      {isLoading ? (
        <Center py="xl">
          <Loader aria-label="Loading the campaign" />
        </Center>
      ) : (
        !failed && (
          <Tabs value={current.key} onChange={(value) => value && go(value as TStepKey)} keepMounted={false}>
            <Tabs.List mb="md">
              {STEPS.map((step) => (
                <Tabs.Tab key={step.key} value={step.key} disabled={step.number > furthest}>
                  {step.number}. {step.label}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            <Tabs.Panel value="start">
              <StartStep
                key={draft.data?.temporaryKey ?? 'new'}
                draft={draft.data}
                onSaved={(campaignId) => {
                  void queryClient.invalidateQueries({ queryKey: campaignKeys.all });
                  navigate(`/campaigns/continue/${campaignId}#/drip/recipients`);
                }}
              />
            </Tabs.Panel>
            {draft.data && (
              <>
                <Tabs.Panel value="recipients">
                  <RecipientsStep draft={draft.data} onSaved={() => void savedThen('compose')()} />
                </Tabs.Panel>
                <Tabs.Panel value="compose">
                  <ComposeStep draft={draft.data} onSaved={() => void savedThen('preview')()} />
                </Tabs.Panel>
                <Tabs.Panel value="preview">
                  <PreviewStep draft={draft.data} onSaved={() => void savedThen('options')()} />
                </Tabs.Panel>
                <Tabs.Panel value="options">
                  <OptionsStep draft={draft.data} onSaved={() => void savedThen('finish')()} />
                </Tabs.Panel>
                <Tabs.Panel value="finish">
                  <FinishStep draft={draft.data} />
                </Tabs.Panel>
              </>
            )}
          </Tabs>
        )
      )}
    </>
  );
};
