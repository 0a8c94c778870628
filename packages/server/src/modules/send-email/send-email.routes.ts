import { SEND_MESSAGES, sendEmailApi, templatesApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { cancelSend, pauseSend, resendUnknown, resumeSend, sendProgress } from '../delivery/delivery.service';
import { cancelWaitingSend, listWaitingSends, sendOrWait } from './send-after-verification.service';
import {
  accountLists,
  deleteTemplate,
  findDuplicates,
  listTemplates,
  saveTemplate,
  sendEmailContent,
} from './send-email.service';
import { sendTransactional } from './transactional.service';

/** Sending is a costly act: generous for a person, a wall for a script. */
const sendLimit = perUserLimit('email-send', 30);
const editLimit = perUserLimit('email-edit', 300);

/** The Send Email page's calls (spec §7 sending) and the template library. */
export const sendEmailRoutes = moduleRoutes(['sending'], (serve, platform) => {
  serve(sendEmailApi.content, async (request) => ({
    status: true as const,
    data: await sendEmailContent(platform, userOf(request), request.query.account),
  }));

  serve(sendEmailApi.accountLists, async (request) =>
    accountLists(platform, userOf(request), request.params.accountId),
  );

  serve(sendEmailApi.duplicates, { config: editLimit }, async (request) =>
    findDuplicates(platform, userOf(request), request.body.mailingLists),
  );

  // A form naming its lists' verifications (`storageId`) waits for them (the verify-lists upsell).
  serve(sendEmailApi.send, { config: sendLimit }, async (request) =>
    sendOrWait(platform, userOf(request), request.body),
  );

  serve(sendEmailApi.waitingSends, async (request) => ({
    data: await listWaitingSends(platform, userOf(request)),
  }));

  serve(sendEmailApi.cancelWaitingSend, { config: editLimit }, async (request) => {
    await cancelWaitingSend(platform, userOf(request), request.params.storageId);
    return { status: true as const, message: 'The email will not be sent. The verification of the lists goes on.' };
  });

  // An integrator's one email (issue 48 §2): the key's own limit and this one, counted per key.
  serve(sendEmailApi.transactional, { config: perUserLimit('email-transactional', 600, 60) }, async (request) => {
    const header = request.headers['idempotency-key'];
    return sendTransactional(platform, userOf(request), request.body, typeof header === 'string' ? header : undefined);
  });

  serve(sendEmailApi.progress, async (request) => ({
    data: await sendProgress(platform, userOf(request), request.params.id),
  }));

  const stateRoute = (action: 'pause' | 'resume' | 'cancel', change: typeof pauseSend, message: string) =>
    serve(sendEmailApi[action], { config: editLimit }, async (request) => {
      await change(platform, userOf(request), request.params.id);
      return { status: true as const, message };
    });
  stateRoute('pause', pauseSend, 'The send is paused. Nothing more goes out until you resume it.');
  stateRoute('resume', resumeSend, 'The send goes on.');
  stateRoute('cancel', cancelSend, 'The send is cancelled. Nothing more goes out.');

  // Recipients whose message may have left (its answer never came) are not resent on
  // their own (R3); the user may choose to, knowing some may get it twice.
  serve(sendEmailApi.resendUnknown, { config: editLimit }, async (request) => {
    const count = await resendUnknown(platform, userOf(request), request.params.id);
    return {
      status: true as const,
      message:
        count === 0
          ? 'No recipient of this send is unknown.'
          : `${count.toLocaleString('en-US')} recipient${count === 1 ? '' : 's'} with an unknown outcome ${count === 1 ? 'is' : 'are'} being sent the email again.`,
    };
  });

  serve(templatesApi.list, async (request) => ({ data: await listTemplates(platform.db, userOf(request)) }));

  serve(templatesApi.save, { config: editLimit }, async (request) => ({
    status: true as const,
    message: SEND_MESSAGES.templateSaved,
    data: await saveTemplate(platform, userOf(request), request.body),
  }));

  serve(templatesApi.delete, { config: editLimit }, async (request) => {
    await deleteTemplate(platform, userOf(request), request.params.id);
    return { status: true as const, message: SEND_MESSAGES.templateDeleted };
  });
});
