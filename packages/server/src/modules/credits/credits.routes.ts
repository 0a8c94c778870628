import { creditsApi } from '@sendwell/contracts';
import { moduleRoutes, userOf } from '../../platform/routes';
import { listCreditLog } from './credits.service';

export const creditRoutes = moduleRoutes(['credits'], (serve, platform) => {
  serve(creditsApi.log, async (request) => listCreditLog(platform, userOf(request), request.query));

  // `GET /api/ajax/get-credit-info` (creditsApi.creditInfo) tells the balance together with
  // the kinds of sending account the user has: it is served by the accounts module, which
  // knows both (credits is the lower of the two and knows no accounts).
});
