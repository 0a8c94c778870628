import { Loader, Select } from '@mantine/core';
import {
  senderDomain,
  sendsAsSenderNameOnly,
  type TCampaignAccount,
  type TCampaignDraft,
  ZCampaignStart,
} from '@sendwell/contracts';
import { useZodForm } from '../../app/useZodForm';
import { readDocument } from '../../components/email-editor/blocks';
import { useCampaignAccounts, useCampaignMutation } from './campaigns.queries';
import { FormCard } from './FormCard';
import { SenderFields, signatureField } from './SenderFields';

type TSaved = (id: number, key: string) => void;

const StartForm = ({
  draft,
  accounts,
  chosenAccount,
  onSaved,
}: {
  draft: TCampaignDraft | undefined;
  accounts: TCampaignAccount[];
  chosenAccount: number | null;
  onSaved: TSaved;
}) => {
  const save = useCampaignMutation('saveStart');
  const form = useZodForm(ZCampaignStart, {
    initialValues: {
      ...(draft ? { temporary: draft.temporaryKey } : {}),
      accountId: String(draft?.start.accountId ?? chosenAccount ?? ''),
      title: draft?.start.title ?? '',
      senderName: draft?.start.senderName ?? '',
      alias: draft?.start.alias ?? '',
      signature: draft?.start.signature ?? '',
      signatureDocument: readDocument(draft?.start.signatureDocument),
    },
    onSubmit: (request, { fail }) => {
      const chosen = accounts.find((candidate) => candidate.id === request.accountId);
      save.mutate(
        { body: { ...request, alias: !chosen || sendsAsSenderNameOnly(chosen.provider) ? '' : request.alias } },
        { onSuccess: (answer) => onSaved(answer.id as number, answer.temporaryKey as string), onError: fail },
      );
    },
  });
  const { values, setValue } = form;
  const account = accounts.find((candidate) => String(candidate.id) === values.accountId);
  const isNameOnly = account ? sendsAsSenderNameOnly(account.provider) : true;
  return (
    <FormCard label="Start" onSubmit={form.onSubmit} isSaving={save.isPending} submitLabel="Next">
      <Select
        label="Sending account"
        required
        data={accounts.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))}
        value={(values.accountId as string) || null}
        onChange={(value) => value && setValue('accountId', value)}
        error={form.errors.accountId}
        allowDeselect={false}
      />
      <SenderFields
        titleLabel="Campaign Title"
        aliasLabel="From"
        isNameOnly={isNameOnly}
        domain={account ? senderDomain(account.domain, false) : null}
        fromAddress={account?.fromAddress}
        title={form.inputProps('title')}
        senderName={form.inputProps('senderName')}
        alias={form.inputProps('alias')}
        {...signatureField(values, form.setValues)}
      />
    </FormCard>
  );
};

/** Step 1 (spec §2 Start): the sending account, title, sender and signature. */
export const StartStep = ({ draft, onSaved }: { draft: TCampaignDraft | undefined; onSaved: TSaved }) => {
  const accounts = useCampaignAccounts();
  if (accounts.isPending) return <Loader aria-label="Loading your accounts" />;
  return (
    <StartForm
      draft={draft}
      accounts={accounts.data?.accountData ?? []}
      chosenAccount={accounts.data?.account?.id ?? null}
      onSaved={onSaved}
    />
  );
};
