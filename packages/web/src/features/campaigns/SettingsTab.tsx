import { Group, NumberInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type TCampaignGeneral, ZCampaignSettings } from '@sendwell/contracts';
import { useZodForm } from '../../app/useZodForm';
import { readDocument } from '../../components/email-editor/blocks';
import { useCampaignMutation } from './campaigns.queries';
import { FormCard } from './FormCard';
import { SenderFields, signatureField } from './SenderFields';

/** The Settings tab (spec §2): title, sender, signature, mail per day and per delay. */
export const SettingsTab = ({ campaign }: { campaign: TCampaignGeneral }) => {
  const save = useCampaignMutation('saveSettings');
  const isNameOnly = campaign.provider === 'smtp' || campaign.provider === 'google';
  const form = useZodForm(ZCampaignSettings, {
    initialValues: {
      title: campaign.title,
      from: campaign.sender_name,
      alias: campaign.alias,
      signature: campaign.signature,
      signatureDocument: readDocument(campaign.signature_document),
      mailPerDay: campaign.mail_per_day,
      mailPerDelay: campaign.mail_per_delay,
    },
    // The sender is checked as Send Email checks it, whose field is the sender name.
    serverField: (field) => (field === 'senderName' ? 'from' : field),
    onSubmit: (_request, { values, fail }) =>
      save.mutate(
        { id: campaign.id, body: values },
        {
          onSuccess: ({ message }) => {
            form.setErrors({});
            notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
          },
          onError: fail,
        },
      ),
  });
  const { values, setValue, errors } = form;
  return (
    <FormCard label="Campaign settings" onSubmit={form.onSubmit} isSaving={save.isPending} submitLabel="Save">
      <SenderFields
        titleLabel="Title"
        aliasLabel="Alias"
        isNameOnly={isNameOnly}
        domain={campaign.domain}
        title={form.inputProps('title')}
        senderName={form.inputProps('from')}
        alias={form.inputProps('alias')}
        {...signatureField(values, form.setValues)}
      />
      <Group grow>
        <NumberInput
          label="Mail Per Day"
          required
          min={1}
          max={campaign.account_limit ?? 100_000}
          description={campaign.account_limit ? `At most ${campaign.account_limit}: the account's limit.` : undefined}
          value={values.mailPerDay as number}
          error={errors.mailPerDay}
          onChange={(value) => setValue('mailPerDay', Number(value) || 0)}
        />
        <NumberInput
          label="Mail Per Delay (Min 120 sec)"
          required
          min={120}
          value={values.mailPerDelay as number}
          error={errors.mailPerDelay}
          onChange={(value) => setValue('mailPerDelay', Number(value) || 0)}
        />
      </Group>
    </FormCard>
  );
};
