export const CREDIT_LOG_URL = '/api/credit-log';

export const creditKeys = {
  /** Every page of the log, whatever its sort and filters: invalidating it refreshes the table on screen. */
  log: ['credits', 'log'] as const,
};
