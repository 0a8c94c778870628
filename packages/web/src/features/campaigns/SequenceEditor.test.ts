import { defaultDailyPlan } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import { checkSequence, emptySequence, liveSequenceErrors, newStepKey, type TSequenceForm } from './SequenceEditor';

const withSecondEmail = (form: TSequenceForm): TSequenceForm => ({
  ...form,
  drips: [...form.drips, { ...form.drips[0]!, key: newStepKey(), subject: '', body: '' }],
});

describe('liveSequenceErrors', () => {
  it('drops "Subject field is required!" once the subject is typed, and keeps the errors of untouched fields', () => {
    const checkedForm = emptySequence(defaultDailyPlan());
    const { errors } = checkSequence(checkedForm);
    expect(errors['drips.0.subject']).toBe('Subject field is required!');
    expect(errors['drips.0.body']).toBeTruthy();

    const typed = { ...checkedForm, drips: [{ ...checkedForm.drips[0]!, subject: 'Welcome' }] };
    const live = liveSequenceErrors(errors, checkedForm, typed);
    expect(live['drips.0.subject']).toBeUndefined();
    expect(live['drips.0.body']).toBe(errors['drips.0.body']);
  });

  it('follows an email when one before it is deleted, and forgets a deleted email’s errors', () => {
    const first = emptySequence(defaultDailyPlan());
    const checkedForm = withSecondEmail({
      ...first,
      drips: [{ ...first.drips[0]!, subject: 'Hi', body: '<p>Hi</p>' }],
    });
    const { errors } = checkSequence(checkedForm);
    expect(Object.keys(errors).some((path) => path.startsWith('drips.1.'))).toBe(true);
    expect(Object.keys(errors).some((path) => path.startsWith('drips.0.'))).toBe(false);

    const withoutFirst = { ...checkedForm, drips: [checkedForm.drips[1]!] };
    const live = liveSequenceErrors(errors, checkedForm, withoutFirst);
    expect(live['drips.0.subject']).toBe(errors['drips.1.subject']);
    expect(Object.keys(live).some((path) => path.startsWith('drips.1.'))).toBe(false);

    const withoutSecond = { ...checkedForm, drips: [checkedForm.drips[0]!] };
    expect(liveSequenceErrors(errors, checkedForm, withoutSecond)).toEqual({});
  });
});
