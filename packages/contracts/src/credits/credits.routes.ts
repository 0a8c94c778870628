import { ZCreditInfo } from '../billing/billing';
import { defineRoute } from '../http/routes';
import { ZCreditLogPage, ZCreditLogQuery } from './credits';

export const creditsApi = {
  log: defineRoute({ method: 'GET', path: '/credit-log', query: ZCreditLogQuery, response: ZCreditLogPage }),
  /** The balance the verification and send screens check before they offer work (spec §3 Credit). */
  creditInfo: defineRoute({ method: 'GET', path: '/ajax/get-credit-info', response: ZCreditInfo }),
};
