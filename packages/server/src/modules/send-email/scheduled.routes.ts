import { historyApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import {
  cancelScheduled,
  deleteScheduled,
  editEmailData,
  editScheduled,
  engagementCountOf,
  listScheduled,
  removeCancel,
  resendByEngagement,
  resendFromHistory,
  saveScheduledForm,
} from './scheduled.service';

const editLimit = perUserLimit('history-edit', 120);

/** The Scheduled Emails page's calls, and History's "Send again" and "Edit" (a new send from an old one). */
export const scheduledRoutes = moduleRoutes(['history'], (serve, platform) => {
  serve(historyApi.resend, { config: editLimit }, async (request) => ({
    status: true,
    message: 'Your email is on its way again.',
    id: await resendFromHistory(platform, userOf(request), request.body.accountId, request.body.id),
  }));
  serve(historyApi.engagementCount, async (request) =>
    engagementCountOf(platform, userOf(request), request.params.id, request.query),
  );
  serve(historyApi.resendEngagement, { config: editLimit }, async (request) => {
    const { sendId, count } = await resendByEngagement(platform, userOf(request), request.params.id, request.body);
    return {
      status: true,
      message: `Your email is on its way to ${count.toLocaleString('en-US')} recipient${count === 1 ? '' : 's'}.`,
      id: sendId,
      count,
    };
  });
  serve(historyApi.editEmailData, async (request) => editEmailData(platform, userOf(request), request.params.id));
  serve(historyApi.scheduledEditData, async (request) => editEmailData(platform, userOf(request), request.params.id));

  serve(historyApi.scheduled, async (request) => listScheduled(platform, userOf(request), request.query));
  serve(historyApi.editScheduled, { config: editLimit }, async (request) => {
    await editScheduled(platform, userOf(request), request.params.id, request.body);
    return { status: true, message: 'Your scheduled email was saved.' };
  });
  serve(historyApi.updateScheduled, { config: editLimit, bodyLimit: 8 * 1024 * 1024 }, async (request) => {
    await saveScheduledForm(platform, userOf(request), request.params.id, request.body);
    return { status: true, message: 'Your scheduled email was saved.' };
  });
  serve(historyApi.cancelScheduled, { config: editLimit }, async (request) => {
    await cancelScheduled(platform, userOf(request), request.params.id);
    return { status: true, message: 'The scheduled email was cancelled.' };
  });
  serve(historyApi.removeCancel, { config: editLimit }, async (request) => {
    await removeCancel(platform, userOf(request), request.params.id);
    return { status: true, message: 'The email is scheduled again.' };
  });
  serve(historyApi.deleteScheduled, { config: editLimit }, async (request) => {
    await deleteScheduled(platform, userOf(request), request.params.id);
    return { status: true, message: 'The email was deleted.' };
  });
});
