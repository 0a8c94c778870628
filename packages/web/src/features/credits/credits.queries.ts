import { creditsApi, routeUrl } from '@sendwell/contracts';

export const CREDIT_LOG_URL = routeUrl(creditsApi.log);

export const creditKeys = {
  /** Every page of the log, whatever its sort and filters: invalidating it refreshes the table on screen. */
  log: ['credits', 'log'] as const,
};
