import crypto from 'node:crypto';
import {
  CAMPAIGN_DEFAULTS,
  defaultDailyPlan,
  isGenericEmail,
  readEmailCell,
  type TCampaignDraft,
  type TDailyPlan,
  type ZCampaignOptions,
  type ZCampaignRecipients,
  type ZCampaignStart,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { genericNames } from '../lists/lists.service';
import { resolveSender } from '../send-email/send-email.service';
import { tickCampaignsJob } from './campaigns.jobs';
import {
  addVariableNames,
  countRecipients,
  countSteps,
  countSuppressedRecipients,
  deleteAllRecipients,
  findCampaign,
  insertCampaign,
  listSteps,
  reachStep,
  recipientsSample,
  startRecipients,
  updateCampaign,
  upsertRecipients,
} from './campaigns.repository';
import { requireDraft, type TSequence, writeSequence } from './campaigns.service';

/**
 * The campaign wizard (spec §4): six steps, each saved to the server on a draft found by its
 * temporary key, the furthest step reached kept; Finish saves the campaign and starts it.
 */

type TRecipientsInput = z.output<typeof ZCampaignRecipients>;
type TOptionsInput = z.output<typeof ZCampaignOptions>;

const newKey = () => crypto.randomBytes(18).toString('base64url');

/** Step 1 (Start): title, sender and signature; a new draft and its temporary key the first time. */
export const saveStart = async (platform: TPlatform, userId: number, input: z.output<typeof ZCampaignStart>) => {
  const sender = await resolveSender(platform, userId, {
    account: input.accountId,
    from: '',
    senderName: input.senderName,
    alias: input.alias,
    useSubdomain: input.useSubdomain,
  });
  const values = {
    account_id: sender.account.id,
    title: input.title,
    sender_name: sender.fromName,
    alias: input.alias,
    use_subdomain: input.useSubdomain,
    from_address: sender.fromAddress,
    signature: input.signature.trim(),
    signature_document: input.signatureDocument,
  };
  if (input.temporary) {
    const draft = await requireDraft(platform.db, userId, input.temporary);
    await updateCampaign(platform.db, draft.id, values);
    await reachStep(platform.db, draft.id, 2);
    return { id: draft.id, temporaryKey: input.temporary };
  }
  const key = newKey();
  const row = await insertCampaign(platform.db, {
    ...values,
    user_id: userId,
    temporary_key: key,
    step: 2,
    daily_plan: JSON.stringify(defaultDailyPlan()),
  });
  return { id: row.id, temporaryKey: key };
};

/** Recipients written per statement: a file of 1,500 KB holds tens of thousands. */
const RECIPIENTS_PER_STATEMENT = 5_000;

/**
 * Step 2 (Recipients): addresses read by the list import's rules, generic ones left out when
 * asked, one recipient per address (a later row updates the earlier), custom variables kept.
 * Suppressed addresses (bounced, complained or unsubscribed before) stay on the campaign,
 * stopped when it starts, so the user sees why; the answer counts them.
 */
export const saveRecipients = async (platform: TPlatform, userId: number, input: TRecipientsInput) => {
  const draft = await requireDraft(platform.db, userId, input.temporary);
  const generic = genericNames(platform);
  const rows = new Map<string, { email: string; name: string; variables: Record<string, string> }>();
  let skipped = 0;
  for (const recipient of input.recipients) {
    const email = readEmailCell(recipient.email).email;
    if (!email || (input.removeGeneric && isGenericEmail(email, generic))) {
      skipped += 1;
      continue;
    }
    const variables = Object.fromEntries(
      Object.entries(recipient.variables).filter(([key, value]) => key.trim() && value.trim() !== ''),
    );
    rows.set(email.toLowerCase(), { email, name: recipient.name.trim(), variables });
  }
  const recipients = [...rows.values()];
  const added = await platform.db.transaction().execute(async (trx) => {
    if (input.replace) await deleteAllRecipients(trx, draft.id);
    let count = 0;
    for (let start = 0; start < recipients.length; start += RECIPIENTS_PER_STATEMENT) {
      count += await upsertRecipients(trx, draft.id, userId, recipients.slice(start, start + RECIPIENTS_PER_STATEMENT));
    }
    await addVariableNames(trx, draft.id, [
      ...new Set(recipients.flatMap((recipient) => Object.keys(recipient.variables))),
    ]);
    return count;
  });
  const total = await countRecipients(platform.db, draft.id);
  if (total === 0) throw new ValidationError({ recipients: ['No address in this file could be added.'] });
  await reachStep(platform.db, draft.id, 3);
  return { count: total, added, skipped, suppressed: await countSuppressedRecipients(platform.db, userId, draft.id) };
};

/** Step 3 (Compose): the sequence and the weekday windows. */
export const saveSequence = async (platform: TPlatform, userId: number, key: string, sequence: TSequence) => {
  const draft = await requireDraft(platform.db, userId, key);
  await writeSequence(platform, draft, sequence);
  await reachStep(platform.db, draft.id, 4);
};

/** Step 4 (Preview) seen. */
export const savePreview = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  if (draft.step < 4) throw new HttpError(409, 'Write the emails of the campaign first.', 'STEP_MISSING');
  await reachStep(platform.db, draft.id, 5);
};

/** Step 5 (Options). */
export const saveOptions = async (platform: TPlatform, userId: number, key: string, options: TOptionsInput) => {
  const draft = await requireDraft(platform.db, userId, key);
  const scheduleAt = options.scheduled && options.scheduleTime ? new Date(options.scheduleTime) : null;
  if (scheduleAt && scheduleAt.getTime() < Date.now() - 60_000) {
    throw new ValidationError({ scheduleTime: ['The first campaign mail must go in the future.'] });
  }
  await updateCampaign(platform.db, draft.id, {
    track_opens: options.trackOpens,
    track_clicks: options.trackClicks,
    schedule_at: scheduleAt,
    accept_law: options.acceptLaw,
  });
  await reachStep(platform.db, draft.id, 6);
};

/** Step 6 (Finish): the campaign is saved and runs (from its scheduled time, when it has one). */
export const finishCampaign = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  const [recipients, steps] = await Promise.all([
    countRecipients(platform.db, draft.id),
    countSteps(platform.db, draft.id),
  ]);
  const missing =
    !draft.title || !draft.account_id
      ? 'the campaign’s title and sender'
      : recipients === 0
        ? 'recipients'
        : steps === 0
          ? 'emails'
          : !draft.accept_law
            ? 'the acceptance of the law and terms'
            : null;
  if (missing) throw new HttpError(409, `The campaign cannot start without ${missing}.`, 'STEP_MISSING');
  const startAt = draft.schedule_at ?? new Date();
  await platform.db.transaction().execute(async (trx) => {
    await updateCampaign(trx, draft.id, {
      is_draft: false,
      temporary_key: null,
      running: true,
      step: 6,
      updated_at: new Date(),
    });
    await startRecipients(trx, userId, draft.id, startAt);
    await platform.queue.enqueue(tickCampaignsJob, {}, { executor: trx, startAfter: startAt });
  });
  return draft.id;
};

/** `POST /api/campaigns/continue/{id}`: the temporary key of an unsaved campaign, to resume it. */
export const draftKeyOf = async (platform: TPlatform, userId: number, id: number) => {
  const row = await findCampaign(platform.db, userId, { id });
  if (!row?.is_draft || !row.temporary_key) throw notFound('This unsaved campaign does not exist any more.');
  return row.temporary_key;
};

/** `POST /api/campaigns/get-temporary-data`: what the wizard resumes with. */
export const draftData = async (platform: TPlatform, userId: number, key: string): Promise<TCampaignDraft> => {
  const draft = await requireDraft(platform.db, userId, key);
  const [steps, count, sample] = await Promise.all([
    listSteps(platform.db, draft.id),
    countRecipients(platform.db, draft.id),
    recipientsSample(platform.db, draft.id, 3),
  ]);
  return {
    id: draft.id,
    temporaryKey: key,
    step: draft.step,
    start: {
      accountId: draft.account_id,
      title: draft.title,
      senderName: draft.sender_name,
      alias: draft.alias,
      useSubdomain: draft.use_subdomain,
      signature: draft.signature,
      signatureDocument: draft.signature_document ?? null,
      from: draft.sender_name ? `${draft.sender_name} <${draft.from_address}>` : draft.from_address,
    },
    recipients: { count, variables: (draft.variables as string[]) ?? [], sample },
    drips: steps.map((step) => ({
      id: step.id,
      subject: step.subject,
      body: step.body,
      bodyDocument: (step.body_document as TCampaignDraft['drips'][number]['bodyDocument']) ?? null,
      replyTo: step.reply_to,
      globalReply: step.global_reply,
      period: step.period,
      frequency: step.frequency,
      followUp: (step.follow_up as TCampaignDraft['drips'][number]['followUp']) ?? null,
      clickFollowUp: (step.click_follow_up as TCampaignDraft['drips'][number]['clickFollowUp']) ?? null,
    })),
    dailyPlan: draft.daily_plan as TDailyPlan,
    options: {
      trackOpens: draft.track_opens,
      trackClicks: draft.track_clicks,
      scheduled: draft.schedule_at !== null,
      scheduleTime: draft.schedule_at?.toISOString() ?? null,
      acceptLaw: draft.accept_law,
    },
  };
};

/** The preview step's recipients (spec §9: up to 50). */
export const previewRecipients = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  return {
    recipients: await recipientsSample(platform.db, draft.id, CAMPAIGN_DEFAULTS.previewRecipients),
    total: await countRecipients(platform.db, draft.id),
  };
};

/** `POST /api/campaigns/remove-recipients`: the draft's recipients, all of them (a new file replaces them). */
export const removeDraftRecipients = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  return deleteAllRecipients(platform.db, draft.id);
};
