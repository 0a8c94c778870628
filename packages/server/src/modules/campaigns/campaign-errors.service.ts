import type { TCampaignFailure } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import { paginate, type TPageParams } from '../../platform/paging';
import { requireCampaign } from './campaigns.service';

/**
 * A campaign's errors page (the spec's linked `/errors`, issue 47): each message that failed,
 * to whom and with the provider's or receiving server's own words; the recipients stopped
 * before their last email, by why; and why the circuit breaker stopped the campaign.
 */
export const campaignErrors = async (platform: TPlatform, userId: number, id: number, query: TPageParams) => {
  const campaign = await requireCampaign(platform.db, userId, id);
  const [page, stopped] = await Promise.all([
    paginate(
      platform.db
        .selectFrom('campaign_messages')
        .innerJoin('campaign_recipients', 'campaign_recipients.id', 'campaign_messages.recipient_id')
        .select([
          'campaign_messages.id',
          'campaign_messages.recipient_id',
          'campaign_recipients.email',
          'campaign_recipients.name',
          'campaign_messages.position',
          'campaign_messages.kind',
          'campaign_messages.subject',
          'campaign_messages.error',
          sql<Date>`coalesce(campaign_messages.synced_at, campaign_messages.created_at)`.as('failed_at'),
        ])
        .where('campaign_messages.campaign_id', '=', id)
        .where('campaign_messages.user_id', '=', userId)
        .where('campaign_messages.status', '=', 'failed'),
      query,
      {
        sortColumns: {
          failed_at: sql`coalesce(campaign_messages.synced_at, campaign_messages.created_at)`,
          email: sql`lower(campaign_recipients.email)`,
        },
        searchColumns: ['campaign_recipients.email', 'campaign_messages.error'],
        tieBreaker: 'campaign_messages.id',
      },
    ),
    platform.db
      .selectFrom('campaign_recipients')
      .select(['stop_reason', (eb) => eb.fn.countAll<string>().as('count')])
      .where('campaign_id', '=', id)
      .where('user_id', '=', userId)
      .where('state', '=', 'stopped')
      .groupBy('stop_reason')
      .orderBy('stop_reason')
      .execute(),
  ]);
  return {
    data: page.data.map(
      (row): TCampaignFailure => ({
        id: row.id,
        recipient_id: row.recipient_id,
        email: row.email,
        name: row.name,
        order: row.position,
        kind: row.kind as TCampaignFailure['kind'],
        subject: row.subject,
        reason: row.error,
        failed_at: new Date(row.failed_at).toISOString(),
      }),
    ),
    meta: page.meta,
    stopped: stopped.map((row) => ({ reason: row.stop_reason ?? 'stopped', count: Number(row.count) })),
    breaker_reason: campaign.running ? null : campaign.breaker_reason,
  };
};
