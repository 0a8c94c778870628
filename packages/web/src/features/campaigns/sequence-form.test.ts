import { defaultDailyPlan, stepOfEmail, type TCampaignEmail, type TCampaignStep } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import { sequenceBody, sequenceFormOf } from './sequence-form';

const followUp = { waitDays: 3, subject: 'Still there?', body: '<p>Nudge</p>', document: null };
const clickFollowUp = {
  waitDays: 1,
  link: 'https://acme.test/p',
  subject: 'Saw you looked',
  body: '<p>Hi</p>',
  document: null,
};

/** One step as the wizard's draft sends it (camelCase). */
const draftStep: TCampaignStep = {
  id: 12,
  subject: 'Hello {{name}}',
  body: '<p>Hi</p>',
  bodyDocument: null,
  replyTo: 'sales@acme.test',
  globalReply: true,
  period: 0,
  frequency: 'day',
  followUp,
  clickFollowUp,
};

/** The same step as the E-Mails page sends it (the spec's server fields, with counts). */
const emailRow: TCampaignEmail = {
  id: 12,
  order: 1,
  subject: 'Hello {{name}}',
  body: '<p>Hi</p>',
  // A document that no longer reads as one is treated as HTML written by hand.
  body_document: { version: 99 },
  reply_to: 'sales@acme.test',
  global_reply: true,
  period: 0,
  frequency: 'day',
  follow_up: followUp,
  click_follow_up: clickFollowUp,
  first: true,
  sent_count: 4,
  queued_count: 0,
  delivered_count: 3,
  opened_count: 2,
  clicked_count: 1,
  bounced_count: 0,
};

describe('one step, two shapes on the wire', () => {
  it('gives the sequence editor the same email from the draft and from the E-Mails page', () => {
    const plan = defaultDailyPlan();
    const fromDraft = sequenceBody(sequenceFormOf([draftStep], plan));
    const fromEmails = sequenceBody(sequenceFormOf([stepOfEmail(emailRow)], plan));
    expect(fromEmails).toEqual(fromDraft);
    expect(fromDraft.drips[0]).toEqual(draftStep);
  });

  it('starts an empty sequence with one blank email', () => {
    const form = sequenceFormOf([], defaultDailyPlan());
    expect(form.drips).toHaveLength(1);
    expect(form.drips[0]).toMatchObject({ subject: '', body: '', period: 5, frequency: 'day' });
  });
});
