import type { TJobDefinition } from '../platform/queue';
import { accountRoutes } from './accounts/accounts.routes';
import { announcementRoutes } from './announcements/announcements.routes';
import { authJobs } from './auth/auth.jobs';
import { authRoutes } from './auth/auth.routes';
import { billingRoutes } from './billing/billing.routes';
import { tickCampaignsJob } from './campaigns/campaigns.jobs';
import { campaignRoutes } from './campaigns/campaigns.routes';
import { contactRoutes } from './contact/contact.routes';
import { creditRoutes } from './credits/credits.routes';
import { importListJob } from './lists/imports.service';
import { indexLeftBehind, indexListSearchJob, syncProviderListsJob } from './lists/lists.jobs';
import { listRoutes } from './lists/lists.routes';
import type { TModule, TModuleHooks } from './module';
import { notificationJobs } from './notifications/notifications.jobs';
import { notificationRoutes } from './notifications/notifications.routes';
import { operatorRoutes } from './operator/operator.routes';
import { planRoutes } from './plans/plans.routes';
import { registrationRoutes } from './registration/registration.routes';
import { watchBounces } from './sending/bounces.service';
import { dashboardRoutes } from './sending/dashboard.routes';
import { historyRoutes } from './sending/history.routes';
import { recipientPages, recipientRoutes, webhookRoutes } from './sending/recipient.routes';
import { sendEmailRoutes } from './sending/send-email.routes';
import { applyEventsJob, dispatchSendJob, sendingTickJob, snapshotSendJob, watchSending } from './sending/sending.jobs';
import { scheduledListUsage } from './sending/sending.service';
import { watchSpamTestMailbox } from './spam-test/mailbox';
import { expireSpamTestJob } from './spam-test/spam-test.jobs';
import { spamTestRoutes } from './spam-test/spam-test.routes';
import { suppressionRoutes } from './suppression/suppression.routes';
import { systemJobs } from './system/system.jobs';
import { systemRoutes } from './system/system.routes';
import { ticketJobs } from './tickets/tickets.jobs';
import { supportRoutes, ticketServiceRoutes } from './tickets/tickets.routes';
import { verifyJob } from './verification/verification.jobs';
import { verificationRoutes } from './verification/verification.routes';

/**
 * Every domain plugs in here: its routes (mounted under /api), pages, jobs and hooks. A
 * new feature adds one entry; app.ts and the worker never change for it.
 */
export const modules: TModule[] = [
  { name: 'system', routes: [systemRoutes], jobs: systemJobs as TJobDefinition[] },
  { name: 'auth', routes: [authRoutes], jobs: authJobs as TJobDefinition[] },
  { name: 'registration', routes: [registrationRoutes] },
  { name: 'plans', routes: [planRoutes] },
  { name: 'billing', routes: [billingRoutes] },
  { name: 'contact', routes: [contactRoutes] },
  { name: 'accounts', routes: [accountRoutes] },
  { name: 'credits', routes: [creditRoutes] },
  {
    name: 'sending',
    // The Send Email page's calls; History and Scheduled Emails; the recipient's side
    // (tracking, unsubscribe); providers' webhooks.
    routes: [sendEmailRoutes, historyRoutes, dashboardRoutes, recipientRoutes, webhookRoutes],
    pages: recipientPages,
    listUsageCheck: scheduledListUsage,
    jobs: [snapshotSendJob, dispatchSendJob, sendingTickJob, applyEventsJob] as TJobDefinition[],
    onWorkerStart: watchSending,
  },
  {
    name: 'lists',
    routes: [listRoutes],
    jobs: [importListJob, syncProviderListsJob, indexListSearchJob] as TJobDefinition[],
    onWorkerStart: indexLeftBehind,
  },
  { name: 'notifications', routes: [notificationRoutes], jobs: notificationJobs as TJobDefinition[] },
  // The Support page's calls, and the ticket service of spec §7 for other apps.
  { name: 'tickets', routes: [supportRoutes, ticketServiceRoutes], jobs: ticketJobs as TJobDefinition[] },
  { name: 'announcements', routes: [announcementRoutes] },
  { name: 'verification', routes: [verificationRoutes], jobs: [verifyJob] as TJobDefinition[] },
  // SMTP and Gmail bounces: the worker's receiver for VERP addresses (BOUNCE_DOMAIN).
  { name: 'bounces', onWorkerStart: watchBounces },
  // The Bounces and Suppression page; its service is what the engine and webhooks call.
  { name: 'suppression', routes: [suppressionRoutes] },
  { name: 'operator', routes: [operatorRoutes] },
  // Drip campaigns: the wizard, the views, and the scheduler's tick (each step handed to the engine).
  { name: 'campaigns', routes: [campaignRoutes], jobs: [tickCampaignsJob] as TJobDefinition[] },
  // Spam tests: the calls, the deadline job, and the test mailbox a worker runs (SPAM_TEST_SMTP_PORT).
  {
    name: 'spam-test',
    routes: [spamTestRoutes],
    jobs: [expireSpamTestJob] as TJobDefinition[],
    onWorkerStart: watchSpamTestMailbox,
  },
];

export const allJobs: TJobDefinition[] = modules.flatMap((module) => module.jobs ?? []);

export const moduleHooks: TModuleHooks = {
  listUsageChecks: modules.flatMap((module) => (module.listUsageCheck ? [module.listUsageCheck] : [])),
};
