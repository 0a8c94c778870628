import { type TDailyPlan, withSignature, type ZStepInput } from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError, notFound } from '../../platform/errors';
import { genericNames } from '../lists/lists.service';
import { verdictOf } from '../verification/verification.service';
import {
  findCampaign,
  insertStep,
  listSteps,
  markStepsDeleted,
  moveRecipientsInSequence,
  recipientFacts,
  updateCampaign,
  updateStep,
} from './campaigns.repository';

/**
 * Campaigns: what the wizard (`campaign-wizard.service.ts`) and the saved campaign's
 * views (`campaign-views.service.ts`) share (finding the user's draft or campaign, writing
 * a sequence), and what other modules ask of a campaign (the pre-send check's facts). The
 * scheduler (`scheduler.ts`) hands each recipient's next step to the delivery engine; the
 * SQL is `campaigns.repository.ts`'s.
 */

export const requireDraft = async (db: Executor, userId: number, key: string) => {
  const row = await findCampaign(db, userId, { key });
  if (!row) throw notFound('This unsaved campaign does not exist any more.');
  return row;
};

export const requireCampaign = async (db: Executor, userId: number, id: number) => {
  const row = await findCampaign(db, userId, { id });
  if (!row) throw notFound('This campaign does not exist.');
  return row;
};

export type TStepInput = z.output<typeof ZStepInput>;

/** A campaign's steps in order and its weekday windows. */
export type TSequence = { steps: TStepInput[]; dailyPlan: TDailyPlan };

/**
 * Writes a sequence: steps matched by id keep their id (their messages' history stays with
 * them), new ones are added, missing ones are deleted (kept for history, out of the
 * sequence); positions follow the given order. Recipients keep their place: one waiting for
 * a deleted step waits for the step after it; one past the last step is done. Messages
 * already handed to the engine are not touched (spec: editing does not affect the queue).
 */
export const writeSequence = (platform: TPlatform, campaign: { id: number; user_id: number }, sequence: TSequence) =>
  platform.db.transaction().execute(async (trx) => {
    const { steps, dailyPlan } = sequence;
    const existing = await listSteps(trx, campaign.id);
    const kept = new Set(steps.flatMap((step) => (step.id ? [step.id] : [])));
    const ids: number[] = [];
    for (const [index, step] of steps.entries()) {
      const values = {
        position: index + 1,
        subject: step.subject,
        body: step.body,
        body_document: step.bodyDocument ? JSON.stringify(step.bodyDocument) : null,
        reply_to: step.replyTo,
        global_reply: index === 0 && step.globalReply,
        period: index === 0 ? 0 : step.period,
        frequency: step.frequency,
        follow_up: step.followUp ? JSON.stringify(step.followUp) : null,
        click_follow_up: step.clickFollowUp ? JSON.stringify(step.clickFollowUp) : null,
      };
      if (step.id && existing.some((saved) => saved.id === step.id)) {
        await updateStep(trx, step.id, values);
        ids.push(step.id);
      } else {
        const row = await insertStep(trx, { ...values, campaign_id: campaign.id, user_id: campaign.user_id });
        ids.push(row.id);
      }
    }
    const removed = existing.filter((step) => !kept.has(step.id));
    if (removed.length > 0)
      await markStepsDeleted(
        trx,
        removed.map((step) => step.id),
      );
    // Old position → new position: a kept step's own, a deleted one's next kept step's.
    const mapping = existing.map((step) => {
      const later = existing.filter((other) => other.position >= step.position && kept.has(other.id));
      const target = later[0] ? ids.indexOf(later[0].id) + 1 : ids.length + 1;
      return { from: step.position, to: target };
    });
    await moveRecipientsInSequence(trx, campaign.id, mapping, ids.length);
    await updateCampaign(trx, campaign.id, { daily_plan: JSON.stringify(dailyPlan), updated_at: new Date() });
  });

/**
 * What a draft will send when it starts, for the pre-send check at the wizard's Finish (issue
 * 31 §1): its account and sender, each email as the scheduler composes it (the signature
 * after the body, the first email's reply-to when it is for all), and its recipients: how
 * many, how many are role addresses, how many are suppressed (they start stopped), and how
 * many the user's verification never found valid or found invalid (verification's `verdictOf`).
 */
export const campaignStartFacts = async (platform: TPlatform, userId: number, key: string) => {
  const draft = await requireDraft(platform.db, userId, key);
  if (!draft.account_id)
    throw new HttpError(409, 'The campaign cannot start without the campaign’s title and sender.', 'STEP_MISSING');
  const steps = await listSteps(platform.db, draft.id);
  const first = steps[0];
  const facts = await recipientFacts(platform.db, userId, draft.id, [...genericNames(platform)], (email) =>
    verdictOf(userId, email),
  );
  return {
    accountId: draft.account_id,
    fromName: draft.sender_name,
    fromAddress: draft.from_address,
    trackOpens: draft.track_opens,
    trackClicks: draft.track_clicks,
    emails: steps.map((step) => ({
      position: step.position,
      subject: step.subject,
      html: withSignature(step.body, draft.signature),
      replyTo: step.reply_to || (first?.global_reply ? first.reply_to : ''),
    })),
    recipients: facts,
  };
};
