import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import { emitEvents } from '../../platform/outbound-events';
import { findUserProfile } from '../auth/auth.service';
import type { TBreakerGroupTripped } from '../module';
import { notifyUser } from '../notifications/notifications.service';
import { campaignBreakerEmailJob } from './campaign-breaker.jobs';

/**
 * A campaign under the engine's one circuit breaker (issue 31 §2, issue 44 §4). Each
 * campaign message is an engine send of one recipient in the campaign's breaker group
 * (`campaignBreakerGroup`), so the engine judges the campaign as a whole, by the rule and
 * lines it judges a send by: its messages handed over (accepted or refused), their hard
 * bounces and complaints, after 200 messages. When the group trips, the engine hands the
 * stop here (`stopTrippedCampaign`, the `breakerGroupTripped` hook): the campaign stops
 * (`running` false, as Stop does), says why on its page, and its user gets a notification,
 * an email and, where they registered for it, the `campaign.stopped` webhook. Started again,
 * the group is judged anew on the messages sent from then on (`resumeBreakerGroup`): the user
 * looked at the figures and chose to go on, and a later run of bounces stops it again.
 */

/** The breaker group of a campaign's messages. */
export const campaignBreakerGroup = (campaignId: number) => `campaign:${campaignId}`;

const campaignOfGroup = (key: string) => {
  const match = /^campaign:(\d+)$/.exec(key);
  return match ? Number(match[1]) : null;
};

/** The engine tripped a campaign's group: the campaign stops, in the trip's transaction, and its user is told. */
export const stopTrippedCampaign: TBreakerGroupTripped = async (platform, trx, { key, userId, reason }) => {
  const id = campaignOfGroup(key);
  if (id === null) return;
  // Only a running campaign stops (and is told about): one its user stopped stays as it is.
  const stopped = await sql<{ title: string }>`
    update campaigns set running = false, breaker_tripped_at = now(), breaker_reason = ${reason}, updated_at = now()
     where id = ${id} and user_id = ${userId} and running and breaker_reason is null
    returning title`.execute(trx);
  const campaign = stopped.rows[0];
  if (!campaign) return;
  const title = campaign.title || '(untitled)';
  await notifyUser(
    platform,
    { userId, title: `Your campaign “${title}” was stopped`, body: reason, link: `/campaigns/detail/${id}` },
    trx,
  );
  await platform.queue.enqueue(campaignBreakerEmailJob, { campaignId: id }, { executor: trx });
  // Webhooks out (issue 48 §3), as a send's pause emits `send.paused`: in the stop's transaction.
  await emitEvents(platform, trx, [
    {
      userId,
      type: 'campaign.stopped',
      orderingKey: `campaign:${id}`,
      data: { campaign_id: id, title: campaign.title, reason },
    },
  ]);
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
      `Sendwell stopped your campaign “${title}”.`,
      '',
      campaign.breaker_reason,
      '',
      `No recipient gets a further step until you start it again: ${appUrl}/campaigns/detail/${campaign.id}`,
      '',
      "The limits are your sending account's: you can change them in the account's settings.",
    ].join('\n'),
  });
};
