import {
  CAMPAIGN_DEFAULTS,
  type TCampaignStep,
  type TDailyPlan,
  type TEmailDocument,
  type TFrequency,
  ZSequence,
} from '@sendwell/contracts';
import type { Dispatch, SetStateAction } from 'react';
import { useZodForm } from '../../app/useZodForm';

/** One step of the sequence as the editor holds it (`key` is the editor's own, `id` the server's). */
export type TStepForm = {
  key: string;
  id?: number | undefined;
  subject: string;
  body: string;
  /** The body's builder document (issue 46); null for HTML written by hand. */
  bodyDocument: TEmailDocument | null;
  replyTo: string;
  globalReply: boolean;
  period: number;
  frequency: TFrequency;
  /** Its unopened step (the spec's follow-up). */
  followUp: TConditionalStepForm | null;
  /** Its click step (the spec's click follow-up). */
  clickFollowUp: (TConditionalStepForm & { link: string }) | null;
};
/** An unopened or a click step as the editor holds it. */
export type TConditionalStepForm = { waitDays: number; subject: string; body: string; document: TEmailDocument | null };

/** The sequence as the editor holds it, keyed as the request (`drips`, the spec's name for the steps). */
export type TSequenceForm = { drips: TStepForm[]; dailyPlan: TDailyPlan };
export type TSequenceErrors = Record<string, string>;

let keys = 0;
export const newStepKey = () => `step-${++keys}`;

/** A new email at the end of a sequence (spec §4): the first one's subject after 'Re: ', its reply-to when it is for all. */
export const newStep = (first: TStepForm | undefined): TStepForm => ({
  key: newStepKey(),
  subject: first ? `Re: ${first.subject}` : '',
  body: '',
  bodyDocument: null,
  replyTo: first?.globalReply ? first.replyTo : '',
  globalReply: false,
  period: CAMPAIGN_DEFAULTS.period,
  frequency: CAMPAIGN_DEFAULTS.frequency,
  followUp: null,
  clickFollowUp: null,
});

export const emptySequence = (dailyPlan: TDailyPlan): TSequenceForm => ({ drips: [newStep(undefined)], dailyPlan });

/** Saved steps (the draft's, or the E-Mails page's through `stepOfEmail`) as the editor edits them. */
export const sequenceFormOf = (steps: readonly TCampaignStep[], dailyPlan: TDailyPlan): TSequenceForm =>
  steps.length === 0
    ? emptySequence(dailyPlan)
    : { drips: steps.map((step) => ({ ...step, key: newStepKey() })), dailyPlan };

/** The sequence as the server takes it: the editor's keys left out, ids only where the server gave one. */
export const sequenceBody = (form: TSequenceForm) => ({
  drips: form.drips.map(({ key: _key, id, ...step }) => ({ ...step, ...(id ? { id } : {}) })),
  dailyPlan: form.dailyPlan,
});

/** The sequence as the server takes it, and the first message of each field that fails. */
export const checkSequence = (form: TSequenceForm) => {
  const body = sequenceBody(form);
  const parsed = ZSequence.safeParse(body);
  const errors: TSequenceErrors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      errors[path] ??= issue.message;
    }
  }
  return { body, errors, ok: parsed.success };
};

/**
 * The errors of a check that still hold: an error stays beside its field until that field
 * changes (a subject typed after "Subject field is required!" takes the message away), and
 * follows its email when emails before it are added or deleted. `against` is the sequence as
 * it was checked.
 */
export const liveSequenceErrors = (
  errors: TSequenceErrors,
  against: TSequenceForm,
  now: TSequenceForm,
): TSequenceErrors => {
  const live: TSequenceErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const [root, position, field] = path.split('.');
    if (root === 'dailyPlan') {
      if (JSON.stringify(against.dailyPlan) === JSON.stringify(now.dailyPlan)) live[path] = message;
      continue;
    }
    if (root !== 'drips' || position === undefined || field === undefined) {
      // About the sequence as a whole: it holds while no email was added or deleted.
      if (against.drips.length === now.drips.length) live[path] = message;
      continue;
    }
    const checked = against.drips[Number(position)];
    const index = checked ? now.drips.findIndex((step) => step.key === checked.key) : -1;
    if (!checked || index === -1) continue;
    const key = field as keyof TStepForm;
    if (JSON.stringify(checked[key]) !== JSON.stringify(now.drips[index]![key])) continue;
    live[['drips', index, ...path.split('.').slice(2)].join('.')] = message;
  }
  return live;
};

/**
 * A sequence being edited, on the app's form hook: checked with the request's own schema
 * (each message under its whole path, `drips.0.subject`), each message gone once its field
 * changes, the server's 422 shown the same way. `requestField` names the request's list of
 * emails (`drips` in the wizard, `emails` on a saved campaign), so its messages land on the
 * editor's fields.
 */
export const useSequenceForm = ({
  initialValues,
  requestField,
  onSubmit,
}: {
  initialValues: TSequenceForm;
  requestField: 'drips' | 'emails';
  onSubmit: (body: ReturnType<typeof sequenceBody>, fail: (error: unknown) => void) => void;
}) => {
  const form = useZodForm(ZSequence, {
    initialValues,
    isNested: true,
    holdErrors: liveSequenceErrors as (errors: TSequenceErrors, against: unknown, now: unknown) => TSequenceErrors,
    serverField: (field) => (field.startsWith(requestField) ? `drips${field.slice(requestField.length)}` : field),
    // The values as typed, not the schema's output: the server parses them itself.
    onSubmit: (_request, { values, fail }) => onSubmit(sequenceBody(values as TSequenceForm), fail),
  });
  // The form holds the editor's own fields (`key`) beside the request's.
  return {
    ...form,
    values: form.values as TSequenceForm,
    setValues: form.setValues as Dispatch<SetStateAction<TSequenceForm>>,
  };
};
