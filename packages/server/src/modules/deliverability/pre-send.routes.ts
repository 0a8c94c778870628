import { preSendApi, sendEmailApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, routesFor, userOf } from '../../platform/routes';
import {
  campaignPreSendCheck,
  messageCheck,
  preSendCheck,
  resendPreSendCheck,
  spamTestPreSendCheck,
} from './pre-send.service';

/** The pre-send check (issue 31 §1), beside Send Email's, the spam-test form's and the drip wizard's own calls. */
export const preSendRoutes = moduleRoutes(['sending'], (serve, platform, app) => {
  serve(sendEmailApi.preSendCheck, { config: perUserLimit('pre-send-check', 120) }, async (request) =>
    preSendCheck(platform, userOf(request), request.body),
  );
  const limit = perUserLimit('pre-send-check', 120);
  serve(preSendApi.spamTest, { config: limit }, async (request) =>
    spamTestPreSendCheck(platform, userOf(request), request.body),
  );
  // Asked as the user types (after a pause): generous for a person, a wall for a script.
  serve(preSendApi.messageCheck, { config: perUserLimit('message-check', 600) }, async (request) =>
    messageCheck(platform, userOf(request), request.body),
  );
  routesFor(app, ['history'])(preSendApi.resend, { config: limit }, async (request) =>
    resendPreSendCheck(platform, userOf(request), request.body.accountId, request.body.id),
  );
  routesFor(app, ['campaigns'])(preSendApi.campaignStart, { config: limit }, async (request) =>
    campaignPreSendCheck(platform, userOf(request), request.body.temporary),
  );
});
