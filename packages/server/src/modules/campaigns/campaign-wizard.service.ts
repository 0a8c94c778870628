import crypto from 'node:crypto';
import {
  CAMPAIGN_DEFAULTS,
  DRAFTS_MAX,
  defaultDailyPlan,
  SEND_MESSAGES,
  type TCampaignAccount,
  type TCampaignDraft,
  type TDailyPlan,
  type ZCampaignOptions,
  type ZCampaignStart,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { countRows } from '../../platform/queries';
import { listAccountRows } from '../accounts/accounts.service';
import { dailyCapOf } from '../delivery/delivery.service';
import { planRulesOf } from '../plans/plans.service';
import { resolveSender, sendEmailContent } from '../send-email/send-email.service';
import { dropSourceRows, refreshListSources, sourcesOf } from './campaign-sources';
import { tickCampaignsJob } from './campaigns.jobs';
import {
  countRecipients,
  countSteps,
  findCampaign,
  insertCampaign,
  listSteps,
  reachStep,
  recipientsSample,
  startRecipients,
  updateCampaign,
} from './campaigns.repository';
import { requireDraft, type TStepInput, writeSequence } from './campaigns.service';

/**
 * The campaign wizard (spec §4): six steps, each saved to the server on a draft found by its
 * temporary key, the furthest step reached kept; Finish saves the campaign and starts it.
 */

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
  const drafts = await countRows(
    platform.db.selectFrom('campaigns').where('user_id', '=', userId).where('is_draft', '=', true),
  );
  if (Number(drafts) >= DRAFTS_MAX) {
    throw new HttpError(
      409,
      `You have ${DRAFTS_MAX} unsaved campaigns. Finish or delete one of them to start another.`,
      'DRAFTS_LIMIT',
    );
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

// Step 2 (Recipients) is `campaign-recipients.service.ts`'s: files, the manual table and lists as sources.

/** Step 3 (Compose): the sequence (the spec's `drips`) and the weekday windows. */
export const saveSequence = async (
  platform: TPlatform,
  userId: number,
  key: string,
  input: { drips: TStepInput[]; dailyPlan: TDailyPlan },
) => {
  const draft = await requireDraft(platform.db, userId, key);
  await writeSequence(platform, draft, { steps: input.drips, dailyPlan: input.dailyPlan });
  await reachStep(platform.db, draft.id, 4);
};

/** Step 4 (Preview) seen. */
export const savePreview = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  if (draft.step < 4) throw new HttpError(409, 'Write the emails of the campaign first.', 'STEP_MISSING');
  await reachStep(platform.db, draft.id, 5);
};

/**
 * The first mail's time is the plan's to allow (spec §6, `check-schedule`), as a scheduled
 * send's is: asked when the options are saved and again when the campaign starts, so a plan
 * changed in between is held too (R23).
 */
const requireScheduling = async (platform: TPlatform, userId: number) => {
  if (!(await planRulesOf(platform, platform.db, userId)).allows_scheduling) {
    throw new ValidationError({ scheduled: [SEND_MESSAGES.scheduleUpgrade] });
  }
};

/** Step 5 (Options). */
export const saveOptions = async (platform: TPlatform, userId: number, key: string, options: TOptionsInput) => {
  const draft = await requireDraft(platform.db, userId, key);
  const scheduleAt = options.scheduled && options.scheduleTime ? new Date(options.scheduleTime) : null;
  if (scheduleAt) await requireScheduling(platform, userId);
  if (scheduleAt && scheduleAt.getTime() < Date.now() - 60_000) {
    throw new ValidationError({ scheduleTime: ['The first campaign mail must go in the future.'] });
  }
  await updateCampaign(platform.db, draft.id, {
    track_opens: options.trackOpens,
    track_clicks: options.trackClicks,
    schedule_at: scheduleAt,
    lead_catcher: options.leadCatcher,
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
  if (draft.schedule_at) await requireScheduling(platform, userId);
  const startAt = draft.schedule_at ?? new Date();
  await platform.db.transaction().execute(async (trx) => {
    // Its lists' members as they are now, as a send takes its lists' when it goes.
    await refreshListSources(trx, draft);
    await dropSourceRows(trx, draft.id);
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

/**
 * `GET /api/campaigns/get-account-information` (spec §7): the user's sending accounts as the
 * wizard offers them, and the one a new campaign starts with (the primary, else the first).
 */
export const accountInformation = async (platform: TPlatform, userId: number) => {
  const [content, rows] = await Promise.all([
    sendEmailContent(platform, userId, undefined),
    listAccountRows(platform.db, userId),
  ]);
  const accountData = content.accounts.map((account): TCampaignAccount => {
    const row = rows.find((candidate) => candidate.id === account.id);
    return { ...account, mailPerDay: row ? dailyCapOf(row) : null };
  });
  return { account: accountData.find((account) => account.id === content.chosenAccount) ?? null, accountData };
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
  const [steps, count, sample, files] = await Promise.all([
    listSteps(platform.db, draft.id),
    countRecipients(platform.db, draft.id),
    recipientsSample(platform.db, draft.id, 3),
    sourcesOf(platform.db, draft.id),
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
    recipients: {
      count,
      variables: (draft.variables as string[]) ?? [],
      sample,
      files,
      duplicates: files.reduce((total, file) => total + file.duplicates, 0),
    },
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
      leadCatcher: draft.lead_catcher,
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
