import { CAMPAIGN_MESSAGES, type TCampaignMemberRow } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { paginate, type TPageParams } from '../../platform/paging';
import { requireCampaign } from './campaigns.service';

/**
 * The spec's members-list variant of a campaign's recipients (§2, §7): name and address, paged
 * (2 a page to begin with), each deletable after a confirmation.
 */

/** `GET /api/drip-campaign/campaign/get-members/{id}`. */
export const campaignMembersList = async (platform: TPlatform, userId: number, id: number, query: TPageParams) => {
  await requireCampaign(platform.db, userId, id);
  const page = await paginate(
    platform.db
      .selectFrom('campaign_recipients')
      .select(['campaign_recipients.id', 'campaign_recipients.name', 'campaign_recipients.email'])
      .where('campaign_recipients.campaign_id', '=', id)
      .where('campaign_recipients.user_id', '=', userId),
    query,
    {
      sortColumns: { email: 'campaign_recipients.email', created_at: 'campaign_recipients.created_at' },
      searchColumns: ['campaign_recipients.email', 'campaign_recipients.name'],
      tieBreaker: 'campaign_recipients.id',
    },
  );
  return {
    data: page.data.map((row): TCampaignMemberRow => ({ id: row.id, fullname: row.name, email: row.email })),
    meta: page.meta,
  };
};

/**
 * `GET /api/drip-campaign/campaign/subscriber/{id}/delete/{memberId}`: one recipient deleted
 * (its history with it; messages already handed to the account still go, as engine sends).
 */
export const deleteCampaignMember = async (platform: TPlatform, userId: number, id: number, memberId: number) => {
  await requireCampaign(platform.db, userId, id);
  const result = await platform.db
    .deleteFrom('campaign_recipients')
    .where('id', '=', memberId)
    .where('campaign_id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('This member does not exist.');
  return CAMPAIGN_MESSAGES.memberDeleted;
};
