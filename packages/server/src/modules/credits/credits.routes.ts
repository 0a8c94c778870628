import { creditsApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor } from '../../platform/routes';
import { findAccountKinds } from '../accounts/accounts.service';
import { getBalance, listCreditLog } from './credits.service';

export const creditRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['credits']);

  serve(creditsApi.log, async (request) => listCreditLog(platform, request.session!.userId, request.query));

  // The balance the verification and send screens check before they offer work (usable =
  // userCredit − usedCredit), and whether the user has SMTP and Gmail accounts (spec §3 Credit).
  serve(creditsApi.creditInfo, async (request) => {
    const userId = request.session!.userId;
    const [balance, kinds] = await Promise.all([
      getBalance(platform.db, userId),
      findAccountKinds(platform.db, userId),
    ]);
    return {
      status: true as const,
      userCredit: balance.totalCredit,
      usedCredit: balance.usedCredit,
      genericEmails: platform.config.genericEmails,
      isSmtp: kinds.hasSmtp,
      isGmail: kinds.hasGmail,
    };
  });
};
