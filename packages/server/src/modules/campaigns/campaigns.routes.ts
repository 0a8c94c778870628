import { CAMPAIGN_MESSAGES, campaignsApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { campaignErrors } from './campaign-errors.service';
import { campaignMembersList, deleteCampaignMember } from './campaign-members.service';
import { addRecipientLists, removeDraftRecipients, saveRecipients } from './campaign-recipients.service';
import {
  campaignCounts,
  campaignEmails,
  campaignGeneral,
  campaignMembers,
  campaignVariables,
  deleteCampaigns,
  deleteRecipients,
  listCampaigns,
  listStatistics,
  recipientHistory,
  saveCampaignEmails,
  saveCampaignSettings,
  setCampaignRunning,
  setRecipientRunning,
} from './campaign-views.service';
import {
  accountInformation,
  draftData,
  draftKeyOf,
  finishCampaign,
  previewRecipients,
  saveOptions,
  savePreview,
  saveSequence,
  saveStart,
} from './campaign-wizard.service';

const editLimit = perUserLimit('campaign-edit', 300);

/** What a change of the recipients did, in words: the total, what was left out, the suppressed, the duplicates. */
const recipientsMessage = (
  saved: { count: number; skipped: number; suppressed: number; duplicates: number },
  isSkip: boolean,
) => {
  if (isSkip) return 'No recipients yet: add them before the campaign starts.';
  const duplicates =
    saved.duplicates > 0
      ? ` ${saved.duplicates.toLocaleString('en-US')} addresses were given more than once and are one recipient each.`
      : '';
  const suppressed =
    saved.suppressed > 0
      ? ` ${saved.suppressed.toLocaleString('en-US')} of them bounced, complained or unsubscribed before and will not be sent to.`
      : '';
  return `${saved.count.toLocaleString('en-US')} recipients; ${saved.skipped} rows skipped.${duplicates}${suppressed}`;
};

/** Campaigns (spec §7 campaign calls): the wizard's steps, the list and the campaign views. */
export const campaignRoutes = moduleRoutes(['campaigns'], (serve, platform) => {
  const ok = (message: string = CAMPAIGN_MESSAGES.saved) => ({ status: true, message });

  serve(campaignsApi.list, async (request) => listCampaigns(platform, userOf(request), request.query));
  serve(campaignsApi.listStatistics, async (request) => ({
    status: true,
    ...(await listStatistics(platform, userOf(request))),
  }));
  serve(campaignsApi.setStatus, { config: editLimit }, async (request) =>
    ok(await setCampaignRunning(platform, userOf(request), request.params.id, request.body.status)),
  );

  serve(campaignsApi.saveStart, { config: editLimit }, async (request) => ({
    ...ok(),
    ...(await saveStart(platform, userOf(request), request.body)),
  }));
  // The rows of a CSV of at most 1,500 KB (spec), as JSON: the rows' own size is checked by
  // the schema (recipientsCsvBytes); the body limit bounds the JSON around them.
  serve(campaignsApi.saveRecipients, { config: editLimit, upload: { maxBytes: 16 * 1024 * 1024 } }, async (request) => {
    const saved = await saveRecipients(platform, userOf(request), request.body);
    return { ...ok(recipientsMessage(saved, request.body.skip)), ...saved };
  });
  serve(campaignsApi.addRecipientLists, { config: editLimit }, async (request) => {
    const saved = await addRecipientLists(platform, userOf(request), request.body);
    return { ...ok(recipientsMessage(saved, false)), ...saved };
  });
  serve(campaignsApi.saveSequence, { config: editLimit, bodyLimit: 8 * 1024 * 1024 }, async (request) => {
    await saveSequence(platform, userOf(request), request.body.temporary, request.body);
    return ok();
  });
  serve(campaignsApi.savePreview, { config: editLimit }, async (request) => {
    await savePreview(platform, userOf(request), request.body.temporary);
    return ok();
  });
  serve(campaignsApi.saveOptions, { config: editLimit }, async (request) => {
    await saveOptions(platform, userOf(request), request.body.temporary, request.body.options);
    return ok();
  });
  serve(campaignsApi.finish, { config: editLimit }, async (request) => ({
    ...ok(CAMPAIGN_MESSAGES.started),
    id: await finishCampaign(platform, userOf(request), request.body.temporary),
  }));
  serve(campaignsApi.temporaryData, async (request) => ({
    status: true,
    data: await draftData(platform, userOf(request), request.body.temporaryKey),
  }));
  serve(campaignsApi.continue, async (request) => ({
    status: true,
    temporaryKey: await draftKeyOf(platform, userOf(request), request.params.id),
  }));
  serve(campaignsApi.previewRecipients, async (request) => ({
    status: true,
    ...(await previewRecipients(platform, userOf(request), request.body.temporary)),
  }));
  serve(campaignsApi.removeRecipients, { config: editLimit }, async (request) => ({
    status: true,
    ...(await removeDraftRecipients(platform, userOf(request), request.body)),
  }));
  serve(campaignsApi.accountInformation, async (request) => ({
    status: true,
    ...(await accountInformation(platform, userOf(request))),
  }));

  serve(campaignsApi.general, async (request) => ({
    status: true,
    campaign: await campaignGeneral(platform, userOf(request), request.params.id),
  }));
  serve(campaignsApi.overview, async (request) => ({
    status: true,
    campaign: await campaignCounts(platform, userOf(request), request.params.id),
  }));
  serve(campaignsApi.emails, async (request) => ({
    status: true,
    ...(await campaignEmails(platform, userOf(request), request.params.id)),
  }));
  serve(campaignsApi.variables, async (request) => ({
    variables: await campaignVariables(platform, userOf(request), request.params.id),
  }));
  serve(campaignsApi.members, async (request) =>
    campaignMembers(platform, userOf(request), request.params.id, request.query),
  );
  serve(campaignsApi.errors, async (request) =>
    campaignErrors(platform, userOf(request), request.params.id, request.query),
  );
  serve(campaignsApi.membersList, async (request) =>
    campaignMembersList(platform, userOf(request), request.params.id, request.query),
  );
  serve(campaignsApi.deleteMember, { config: editLimit }, async (request) => ({
    status: true,
    message: await deleteCampaignMember(platform, userOf(request), request.params.id, request.params.memberId),
  }));
  serve(campaignsApi.recipientHistory, async (request) => ({
    status: true,
    history: await recipientHistory(platform, userOf(request), request.params.id),
  }));
  serve(campaignsApi.saveSettings, { config: editLimit }, async (request) => {
    await saveCampaignSettings(platform, userOf(request), request.params.id, request.body);
    return ok();
  });
  serve(campaignsApi.saveEmails, { config: editLimit, bodyLimit: 8 * 1024 * 1024 }, async (request) => {
    await saveCampaignEmails(platform, userOf(request), request.params.id, request.body);
    return ok('Your emails have been saved.');
  });
  serve(campaignsApi.recipientStatus, { config: editLimit }, async (request) => {
    await setRecipientRunning(platform, userOf(request), request.params.id, request.body.emailId, request.body.status);
    return ok(request.body.status ? 'The recipient goes on.' : 'The recipient is paused.');
  });
  serve(campaignsApi.deleteCampaigns, { config: editLimit }, async (request) => {
    const deleted = await deleteCampaigns(platform, userOf(request), request.body.ids);
    return ok(deleted === 1 ? 'The campaign was deleted.' : `${deleted} campaigns were deleted.`);
  });
  serve(campaignsApi.deleteRecipients, { config: editLimit }, async (request) => {
    const deleted = await deleteRecipients(platform, userOf(request), request.params.id, request.body.recipients);
    return ok(`${deleted} recipients deleted.`);
  });
});
