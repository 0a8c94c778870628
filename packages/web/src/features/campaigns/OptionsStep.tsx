import { Checkbox, Title } from '@mantine/core';
import {
  deliveryParts,
  parseDeliveryTime,
  SEND_MESSAGES,
  type TCampaignDraft,
  ZCampaignOptions,
} from '@sendwell/contracts';
import { useState } from 'react';
import { useTimeZone } from '../../app/dates';
import { type TFormErrors, useZodForm } from '../../app/useZodForm';
import { DeliveryTimePicker, type TDeliveryValue } from '../send-email/DeliveryTimePicker';
import { deliveryTimeOf } from '../send-email/send-email.form';
import { useCampaignMutation, useCheckSchedule } from './campaigns.queries';
import { FormCard } from './FormCard';

/** Step 5 (spec §2 Options): tracking, the first mail's time, the law and terms. */
export const OptionsStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('saveOptions');
  const allowsScheduling = useCheckSchedule().data?.createSchedule ?? true;
  const timeZone = useTimeZone();
  // The first mail's time on the user's clock, as every other time (issue 29), not the browser's.
  const [schedule, setSchedule] = useState<TDeliveryValue>(() => {
    const parts = draft.options.scheduleTime ? deliveryParts(new Date(draft.options.scheduleTime), timeZone) : null;
    return { deliveryDate: parts?.date ?? null, deliverySlot: parts?.slot ?? null };
  });
  const form = useZodForm(ZCampaignOptions, {
    initialValues: draft.options,
    // The request nests the options (`options.acceptLaw`).
    serverField: (field) => field.replace(/^options\./, ''),
    // The plan decides (spec §6, `check-schedule`): the picker says so, and the server holds the same gate.
    validate: (options): TFormErrors =>
      options.scheduled && !allowsScheduling ? { scheduled: SEND_MESSAGES.scheduleUpgrade } : {},
    onSubmit: (_request, { values, fail }) =>
      save.mutate({ body: { temporary: draft.temporaryKey, options: values } }, { onSuccess: onSaved, onError: fail }),
  });
  const { values, setValue, errors } = form;
  const chooseSchedule = (value: TDeliveryValue) => {
    setSchedule(value);
    setValue('scheduleTime', parseDeliveryTime(deliveryTimeOf(value), timeZone)?.toISOString() ?? null);
  };
  return (
    <FormCard label="Options" onSubmit={form.onSubmit} isSaving={save.isPending} submitLabel="Next">
      <Title order={2} fz="md">
        Choose how your campaign will be sent
      </Title>
      <Checkbox
        label="Track opens"
        checked={values.trackOpens ?? true}
        onChange={(event) => setValue('trackOpens', event.currentTarget.checked)}
      />
      <Checkbox
        label="Schedule the first campaign mail"
        checked={values.scheduled ?? false}
        onChange={(event) => setValue('scheduled', event.currentTarget.checked)}
        error={errors.scheduled}
      />
      {values.scheduled && (
        <DeliveryTimePicker
          id="campaign-schedule"
          value={schedule}
          onChange={chooseSchedule}
          timeZone={timeZone}
          allowsScheduling
          isRequired
          labels={{ date: 'First mail on', time: 'First mail at' }}
          error={errors.scheduleTime}
        />
      )}
      <Checkbox
        label="I accept the law and terms: my recipients agreed to hear from me, and every email lets them unsubscribe."
        checked={values.acceptLaw as boolean}
        onChange={(event) => setValue('acceptLaw', event.currentTarget.checked)}
        error={errors.acceptLaw}
      />
    </FormCard>
  );
};
