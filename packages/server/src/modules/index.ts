import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../platform/context';
import type { TJobDefinition } from '../platform/queue';
import { accountRoutes } from './accounts/accounts.routes';
import { authJobs } from './auth/auth.jobs';
import { authRoutes } from './auth/auth.routes';
import { billingRoutes } from './billing/billing.routes';
import { contactRoutes } from './contact/contact.routes';
import { creditRoutes } from './credits/credits.routes';
import { importListJob } from './lists/imports.service';
import { syncProviderListsJob } from './lists/lists.jobs';
import { listRoutes } from './lists/lists.routes';
import { notificationJobs } from './notifications/notifications.jobs';
import { notificationRoutes } from './notifications/notifications.routes';
import { planRoutes } from './plans/plans.routes';
import { registrationRoutes } from './registration/registration.routes';
import { emailRoutes } from './sending/email.routes';
import { applyEventsJob, dispatchSendJob, sendingTickJob, snapshotSendJob, watchSending } from './sending/sending.jobs';
import { sendingRoutes } from './sending/sending.routes';
import { systemJobs } from './system/system.jobs';
import { systemRoutes } from './system/system.routes';

/**
 * Every domain plugs in here: its routes (mounted under /api) and its jobs. A new
 * feature adds one line; app.ts and the worker never change for it.
 */
export type TModule = {
  name: string;
  routes?: FastifyPluginAsyncZod<{ platform: TPlatform }>;
  jobs?: TJobDefinition[];
  /** Runs once in each worker process after its job handlers start; answers how to stop it. */
  onWorkerStart?: (platform: TPlatform) => () => void;
};

export const modules: TModule[] = [
  { name: 'system', routes: systemRoutes, jobs: systemJobs as TJobDefinition[] },
  { name: 'auth', routes: authRoutes, jobs: authJobs as TJobDefinition[] },
  { name: 'registration', routes: registrationRoutes },
  { name: 'plans', routes: planRoutes },
  { name: 'billing', routes: billingRoutes },
  { name: 'contact', routes: contactRoutes },
  { name: 'accounts', routes: accountRoutes },
  { name: 'credits', routes: creditRoutes },
  {
    name: 'sending',
    routes: sendingRoutes,
    jobs: [snapshotSendJob, dispatchSendJob, sendingTickJob, applyEventsJob] as TJobDefinition[],
    onWorkerStart: watchSending,
  },
  { name: 'email', routes: emailRoutes },
  { name: 'lists', routes: listRoutes, jobs: [importListJob, syncProviderListsJob] as TJobDefinition[] },
  { name: 'notifications', routes: notificationRoutes, jobs: notificationJobs as TJobDefinition[] },
];

export const allJobs: TJobDefinition[] = modules.flatMap((module) => module.jobs ?? []);
