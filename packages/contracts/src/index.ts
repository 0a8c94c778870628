export * from './accounts/accounts';
export * from './auth/auth';
export * from './billing/billing';
export * from './credits/credits';
export * from './http/errors';
export * from './notifications/notifications';
export * from './paging/paging';
export * from './realtime/events';
