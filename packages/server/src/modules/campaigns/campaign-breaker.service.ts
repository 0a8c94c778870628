import { breakerReason, breakerVerdict } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import { findAccountRow } from '../accounts/accounts.service';
import { findUserProfile } from '../auth/auth.service';
import { findHardBouncedSends } from '../delivery/delivery.service';
import { notifyUser } from '../notifications/notifications.service';
import { campaignBreakerEmailJob } from './campaign-breaker.jobs';

/**
 * The circuit breaker for a drip campaign (issue 31 §2, rule in contracts
 * `sending/circuit-breaker.ts`). Each drip message is an engine send of one recipient, so
 * the campaign is judged as a whole: its messages handed over (accepted or refused), their
 * hard bounces (the engine's permanent failures) and complaints, against its account's
 * lines. Past one after 200 messages, the campaign stops (`running` false, as Stop does),
 * says why on its page, and its user gets a notification and an email. Started again, it is
 * judged anew on the messages handed over after the stop (`breaker_after_message_id`): the
 * user looked at the figures and chose to go on, and a later run of bounces stops it again.
 */

type TFigures = {
  id: number;
  user_id: number;
  account_id: number;
  title: string;
  attempts: number;
  complaints: number;
};

/** Judges these campaigns (their messages' outcomes just moved) and stops those past a line. Answers the ids stopped. */
export const judgeCampaigns = async (platform: TPlatform, campaignIds: number[]) => {
  if (campaignIds.length === 0) return [];
  const rows = (
    await sql<TFigures & { failed_sends: number[]; last_message_id: number | null; judged_after: number }>`
      select c.id, c.user_id, c.account_id, c.title, max(m.id) as last_message_id,
             c.breaker_after_message_id as judged_after,
             count(m.id) filter (where m.sent_at is not null or m.status = 'failed')::int as attempts,
             count(m.id) filter (where m.complained_at is not null)::int as complaints,
             coalesce(array_agg(m.send_id) filter (where m.status = 'failed' and m.send_id is not null), '{}') as failed_sends
        from campaigns c
        left join campaign_messages m
          on m.campaign_id = c.id and m.id > c.breaker_after_message_id
       where c.id = any(${[...new Set(campaignIds)]}::bigint[]) and c.running and not c.is_draft
         and c.breaker_reason is null and c.account_id is not null
       group by c.id, c.breaker_after_message_id`.execute(platform.db)
  ).rows;
  const stopped: number[] = [];
  for (const row of rows) {
    const account = await findAccountRow(platform.db, Number(row.user_id), Number(row.account_id));
    if (!account) continue;
    const hardBounces = (await findHardBouncedSends(platform.db, row.failed_sends.map(Number))).length;
    const verdict = breakerVerdict(
      { attempts: row.attempts, hardBounces, complaints: row.complaints },
      { bouncePercent: account.breaker_bounce_percent, complaintPercent: account.breaker_complaint_percent },
    );
    if (!verdict) continue;
    const reason = breakerReason(verdict, Number(row.judged_after) > 0 ? 'resume' : 'start');
    const id = Number(row.id);
    const isStopped = await platform.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('campaigns')
        .set({
          running: false,
          breaker_tripped_at: new Date(),
          breaker_reason: reason,
          breaker_after_message_id: Number(row.last_message_id ?? 0),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .where('running', '=', true)
        .where('breaker_reason', 'is', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      const title = row.title || '(untitled)';
      await notifyUser(
        platform,
        {
          userId: Number(row.user_id),
          title: `Your campaign “${title}” was stopped`,
          body: reason,
          link: `/campaigns/detail/${id}`,
        },
        trx,
      );
      await platform.queue.enqueue(campaignBreakerEmailJob, { campaignId: id }, { executor: trx });
      return true;
    });
    if (isStopped) stopped.push(id);
  }
  return stopped;
};

/** The email its user gets when the breaker stopped a campaign (queued with the stop). */
export const mailCampaignBreaker = async (platform: TPlatform, campaignId: number, appUrl: string) => {
  const campaign = await platform.db
    .selectFrom('campaigns')
    .select(['id', 'user_id', 'title', 'breaker_reason'])
    .where('id', '=', campaignId)
    .executeTakeFirst();
  if (!campaign?.breaker_reason) return;
  const user = await findUserProfile(platform.db, campaign.user_id);
  const title = campaign.title || '(untitled)';
  await platform.mailer.send({
    to: user.email,
    subject: `Your campaign “${title}” was stopped`,
    text: [
      `Hello ${user.name},`,
      '',
      `Sendwell stopped your drip campaign “${title}”.`,
      '',
      campaign.breaker_reason,
      '',
      `No recipient gets a further step until you start it again: ${appUrl}/campaigns/detail/${campaign.id}`,
      '',
      "The limits are your sending account's: you can change them in the account's settings.",
    ].join('\n'),
  });
};
