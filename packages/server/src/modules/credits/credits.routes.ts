import { ZCreditInfo, ZCreditLogPage, ZCreditLogQuery } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { findAccountKinds } from '../accounts/accounts.service';
import { getBalance, listCreditLog } from './credits.service';

export const creditRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/credit-log',
    { schema: { tags: ['credits'], querystring: ZCreditLogQuery, response: { 200: ZCreditLogPage } } },
    async (request) => listCreditLog(platform, request.session!.userId, request.query),
  );

  // The balance the verification and send screens check before they offer work (usable =
  // userCredit − usedCredit), and whether the user has SMTP and Gmail accounts (spec §3 Credit).
  app.get(
    '/ajax/get-credit-info',
    { schema: { tags: ['credits'], response: { 200: ZCreditInfo } } },
    async (request) => {
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
    },
  );
};
