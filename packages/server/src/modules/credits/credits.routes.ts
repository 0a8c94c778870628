import { ZCreditInfo, ZCreditLogPage, ZCreditLogQuery } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { getBalance, listCreditLog } from './credits.service';

export const creditRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/credit-log',
    { schema: { tags: ['credits'], querystring: ZCreditLogQuery, response: { 200: ZCreditLogPage } } },
    async (request) => listCreditLog(platform, request.session!.userId, request.query),
  );

  // The balance the verification and send screens check before they offer work. isSmtp and
  // isGmail describe the chosen sending account; without sending accounts both are false.
  app.get(
    '/ajax/get-credit-info',
    { schema: { tags: ['credits'], response: { 200: ZCreditInfo } } },
    async (request) => {
      const balance = await getBalance(platform.db, request.session!.userId);
      return {
        status: true as const,
        userCredit: balance.totalCredit,
        usedCredit: balance.usedCredit,
        genericEmails: platform.config.genericEmails,
        isSmtp: false,
        isGmail: false,
      };
    },
  );
};
