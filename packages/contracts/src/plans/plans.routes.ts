import { z } from 'zod';
import { ZPackage } from '../billing/billing';
import { defineRoute } from '../http/routes';

export const plansApi = {
  /** Public: the registration screen shows the plans before anyone has an account. */
  packages: defineRoute({ method: 'GET', path: '/packages', response: z.object({ data: z.array(ZPackage) }) }),
  checkSchedule: defineRoute({
    method: 'GET',
    path: '/scheduled-mails/check-schedule',
    response: z.object({ createSchedule: z.boolean() }),
  }),
};
