import type { TJobDefinition } from '../platform/queue';
import { decideAbTestJob } from './ab-tests/ab-tests.jobs';
import { accountRoutes } from './accounts/accounts.routes';
import { announcementRoutes } from './announcements/announcements.routes';
import { apiKeyRoutes } from './api-keys/api-keys.routes';
import { authenticateApiKey } from './api-keys/api-keys.service';
import { authJobs } from './auth/auth.jobs';
import { authRoutes } from './auth/auth.routes';
import { cleanUpAuth } from './auth/auth.service';
import { profileJobs } from './auth/profile.jobs';
import { profileRoutes } from './auth/profile.routes';
import { billingRoutes } from './billing/billing.routes';
import { campaignBreakerEmailJob } from './campaigns/campaign-breaker.jobs';
import { stopTrippedCampaign } from './campaigns/campaign-breaker.service';
import { campaignListUsage } from './campaigns/campaign-recipients.service';
import { tickCampaignsJob } from './campaigns/campaigns.jobs';
import { campaignRoutes } from './campaigns/campaigns.routes';
import { campaignsPersonalData } from './campaigns/personal-data';
import { contactRoutes } from './contact/contact.routes';
import { creditRoutes } from './credits/credits.routes';
import { preSendRoutes } from './deliverability/pre-send.routes';
import { breakerEmailJob } from './delivery/circuit-breaker.jobs';
import { dispatchSendJob, sendingTickJob, snapshotSendJob, watchSending } from './delivery/delivery.jobs';
import { scheduledListUsage } from './delivery/delivery.service';
import { deliveryPersonalData } from './delivery/personal-data';
import { bounceListener, bounceRoute, feedbackRoute } from './delivery-events/bounces';
import { applyEventsJob } from './delivery-events/delivery-events.jobs';
import { recipientPages, recipientRoutes, webhookRoutes } from './delivery-events/delivery-events.routes';
import { pruneWebhookRecords } from './delivery-events/mailgun-webhooks';
import { deliveryEventsPersonalData } from './delivery-events/personal-data';
import { startInboundListeners } from './inbound/receiver';
import { importListJob } from './lists/imports.service';
import { bringInProviderLists, indexLeftBehind, indexListSearchJob, syncProviderListsJob } from './lists/lists.jobs';
import { listRoutes } from './lists/lists.routes';
import { listsPersonalData } from './lists/personal-data';
import { cleanUpExpiredSignups } from './lists/subscriptions.service';
import { mediaPages, mediaRoutes } from './media/media.routes';
import { cleanUpMedia } from './media/media.service';
import type { TModule, TModuleHooks } from './module';
import { notificationJobs } from './notifications/notifications.jobs';
import { notificationRoutes } from './notifications/notifications.routes';
import { operatorRoutes } from './operator/operator.routes';
import { planRoutes } from './plans/plans.routes';
import { privacyRoutes } from './privacy/privacy.routes';
import { cleanUpCaptchas } from './registration/captcha.service';
import { registrationRoutes } from './registration/registration.routes';
import { dashboardRoutes } from './reports/dashboard.routes';
import { historyRoutes } from './reports/history.routes';
import { sendsAfterVerificationPersonalData } from './send-email/personal-data';
import { scheduledRoutes } from './send-email/scheduled.routes';
import { cleanUpSendsAfterVerification, whenListVerificationEnded } from './send-email/send-after-verification.service';
import { startAfterVerificationJob } from './send-email/send-email.jobs';
import { sendEmailRoutes } from './send-email/send-email.routes';
import { signupPages, signupRoutes } from './signup/signup.routes';
import { sendConfirmation } from './signup/signup.service';
import { spamTestListener, spamTestRoute } from './spam-test/mailbox';
import { expireSpamTestJob } from './spam-test/spam-test.jobs';
import { spamTestRoutes } from './spam-test/spam-test.routes';
import { suppressionPersonalData } from './suppression/personal-data';
import { suppressionRoutes } from './suppression/suppression.routes';
import { cleanUpSuppressions } from './suppression/suppression.service';
import { systemJobs } from './system/system.jobs';
import { systemRoutes } from './system/system.routes';
import { testInboxPersonalData } from './test-inbox/personal-data';
import { testInboxRoutes } from './test-inbox/test-inbox.routes';
import { testInboxListener, testInboxRoute } from './test-inbox/test-inbox.service';
import { ticketJobs } from './tickets/tickets.jobs';
import { supportRoutes, ticketServiceRoutes } from './tickets/tickets.routes';
import { unreadTicketsOf } from './tickets/tickets.service';
import { verificationPersonalData } from './verification/personal-data';
import { verifyJob } from './verification/verification.jobs';
import { verificationRoutes } from './verification/verification.routes';
import { verifyAfterImport } from './verification/verification.service';
import { webhooksPersonalData } from './webhooks/personal-data';
import { deliverWebhooksJob, sweepWebhooksJob } from './webhooks/webhooks.jobs';
import { webhookEndpointRoutes } from './webhooks/webhooks.routes';
import { pruneWebhookLog, queueEvents } from './webhooks/webhooks.service';

/**
 * Every domain plugs in here: its routes (mounted under /api), pages, jobs and the hooks it
 * registers with lower modules. A new feature adds one entry; app.ts and the worker never
 * change for it. Entries run from the lowest module to the highest (ARCHITECTURE.md,
 * "Modules"); a worker stops their watches in the reverse order.
 */
export const modules: TModule[] = [
  // Runs every registered part of the hourly cleanup.
  { name: 'system', routes: [systemRoutes], jobs: systemJobs as TJobDefinition[] },
  // The SMTP listeners of every module that registered one (test inbox, bounces, test mailbox).
  { name: 'inbound', onWorkerStart: startInboundListeners },
  { name: 'plans', routes: [planRoutes] },
  { name: 'credits', routes: [creditRoutes] },
  { name: 'notifications', routes: [notificationRoutes], jobs: notificationJobs as TJobDefinition[] },
  { name: 'announcements', routes: [announcementRoutes] },
  { name: 'contact', routes: [contactRoutes] },
  // Images for emails (issue 46): the library, the drip editor's upload, and /media/<hash> for mail clients.
  { name: 'media', routes: [mediaRoutes], pages: mediaPages, cleanup: cleanUpMedia },
  {
    name: 'auth',
    routes: [authRoutes, profileRoutes],
    jobs: [...authJobs, ...profileJobs] as TJobDefinition[],
    cleanup: cleanUpAuth,
  },
  // The Support page's calls, and the ticket service of spec §7 for other apps.
  {
    name: 'tickets',
    routes: [supportRoutes, ticketServiceRoutes],
    jobs: ticketJobs as TJobDefinition[],
    userInformation: unreadTicketsOf,
  },
  { name: 'billing', routes: [billingRoutes] },
  // API keys (issue 48 §2): Settings → API keys, and how http-security finds a key's holder.
  { name: 'api-keys', routes: [apiKeyRoutes], apiKeyAuth: authenticateApiKey },
  { name: 'registration', routes: [registrationRoutes], cleanup: cleanUpCaptchas },
  // Mail its users send to the test inbox: its listener on loopback and its route (catch-all).
  {
    name: 'test-inbox',
    routes: [testInboxRoutes],
    inboundListeners: [testInboxListener],
    inboundRoutes: [testInboxRoute],
    personalData: testInboxPersonalData,
  },
  { name: 'accounts', routes: [accountRoutes] },
  {
    name: 'lists',
    routes: [listRoutes],
    jobs: [importListJob, syncProviderListsJob, indexListSearchJob] as TJobDefinition[],
    onWorkerStart: indexLeftBehind,
    accountSaved: bringInProviderLists,
    personalData: listsPersonalData,
    cleanup: cleanUpExpiredSignups,
  },
  // The Bounces and Suppression page; its service is what the engine and the intake call.
  {
    name: 'suppression',
    routes: [suppressionRoutes],
    cleanup: cleanUpSuppressions,
    personalData: suppressionPersonalData,
  },
  {
    name: 'verification',
    routes: [verificationRoutes],
    jobs: [verifyJob] as TJobDefinition[],
    verifyImportedList: verifyAfterImport,
    personalData: verificationPersonalData,
  },
  // The delivery engine: sources, snapshot, claims, composition, transports, settles, caps.
  {
    name: 'delivery',
    listUsageCheck: scheduledListUsage,
    jobs: [snapshotSendJob, dispatchSendJob, sendingTickJob, breakerEmailJob] as TJobDefinition[],
    onWorkerStart: watchSending,
    personalData: deliveryPersonalData,
  },
  // The outside world's word about messages: provider webhooks, bounces, tracking, unsubscribes.
  {
    name: 'delivery-events',
    routes: [recipientRoutes, webhookRoutes],
    pages: recipientPages,
    jobs: [applyEventsJob] as TJobDefinition[],
    inboundListeners: [bounceListener],
    inboundRoutes: [bounceRoute, feedbackRoute],
    cleanup: pruneWebhookRecords,
    personalData: deliveryEventsPersonalData,
  },
  // A/B subject tests (issue 31): a split send's test row and its decision job; History reads their result.
  { name: 'ab-tests', jobs: [decideAbTestJob] as TJobDefinition[] },
  // History and the delivery dashboard: what the screens count and list.
  { name: 'reports', routes: [historyRoutes, dashboardRoutes] },
  // The Send Email page, its templates, Scheduled Emails and History's "Send again".
  // A send that waits for its lists' verification (the verify-lists upsell) starts when the last ends.
  {
    name: 'send-email',
    routes: [sendEmailRoutes, scheduledRoutes],
    jobs: [startAfterVerificationJob] as TJobDefinition[],
    listVerificationEnded: whenListVerificationEnded,
    cleanup: cleanUpSendsAfterVerification,
    personalData: sendsAfterVerificationPersonalData,
  },
  // Spam tests: the calls, the deadline job, the test mailbox's listener and route.
  {
    name: 'spam-test',
    routes: [spamTestRoutes],
    jobs: [expireSpamTestJob] as TJobDefinition[],
    inboundListeners: [spamTestListener],
    inboundRoutes: [spamTestRoute],
  },
  // Drip campaigns: the wizard, the views, and the scheduler's tick (each step handed to the engine).
  {
    name: 'campaigns',
    routes: [campaignRoutes],
    jobs: [tickCampaignsJob, campaignBreakerEmailJob] as TJobDefinition[],
    personalData: campaignsPersonalData,
    // The engine's breaker trips a campaign's group of messages: the campaign stops.
    breakerGroupTripped: stopTrippedCampaign,
    listUsageCheck: campaignListUsage,
  },
  // Signup forms (issue 48 §1): the hosted page, an embedded form's post, the confirmation
  // email and link, the preferences page of every email's footer.
  { name: 'signup', routes: [signupRoutes], pages: signupPages, sendSignupConfirmation: sendConfirmation },
  { name: 'operator', routes: [operatorRoutes] },
  // The pre-send check (issue 31): DNS, the spam test's content checks and the lists, before Send Email's confirmation.
  { name: 'deliverability', routes: [preSendRoutes] },
  // A person's data on request (issue 48 §4): export and erase one address through every module's part.
  { name: 'privacy', routes: [privacyRoutes] },
  // Webhooks out (issue 48 §3): the events lists, the engine and the intake emit, delivered signed and in order.
  {
    name: 'webhooks',
    routes: [webhookEndpointRoutes],
    jobs: [deliverWebhooksJob, sweepWebhooksJob] as TJobDefinition[],
    eventSink: queueEvents,
    cleanup: pruneWebhookLog,
    personalData: webhooksPersonalData,
  },
];

export const allJobs: TJobDefinition[] = modules.flatMap((module) => module.jobs ?? []);

const registered = <K extends keyof TModule>(key: K) =>
  modules.flatMap((module) => (module[key] === undefined ? [] : [module[key] as NonNullable<TModule[K]>]));

export const moduleHooks: TModuleHooks = {
  listUsageChecks: registered('listUsageCheck'),
  userInformation: registered('userInformation'),
  verifyImportedList: registered('verifyImportedList')[0] ?? null,
  listVerificationEnded: registered('listVerificationEnded'),
  accountSaved: registered('accountSaved'),
  inboundListeners: registered('inboundListeners').flat(),
  inboundRoutes: registered('inboundRoutes').flat(),
  cleanups: registered('cleanup'),
  personalData: registered('personalData'),
  apiKeyAuth: registered('apiKeyAuth')[0] ?? null,
  sendSignupConfirmation: registered('sendSignupConfirmation')[0] ?? null,
  eventSinks: registered('eventSink'),
  breakerGroupTripped: registered('breakerGroupTripped'),
};
