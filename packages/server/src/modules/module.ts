import type { TApiKeyScope, TUserInformation, TWebhookEventType } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../platform/context';
import type { Executor } from '../platform/db';
import type { TJobDefinition } from '../platform/queue';
import type { TInboundListener, TInboundRoute } from './inbound/inbound.service';
import type { TListUsageCheck } from './lists/lists.service';
import type { TFormList } from './lists/signup-form.service';

/**
 * Fields another module adds to the signed-in user's information (the tickets module: the
 * unread answers the navigation badges), so auth need not know those modules.
 */
export type TUserInformationPart = (db: Executor, userId: number) => Promise<Partial<TUserInformation>>;

/** Starts verifying a list's members after an import that asked for it; never fails the import. */
export type TVerifyImportedList = (
  platform: TPlatform,
  userId: number,
  listId: number,
) => Promise<{ started: boolean; message: string }>;

/**
 * A list's verification ended (finished, its valid members marked; or failed), told in the
 * transaction that ends it. Offered by verification; the send-email module registers it to
 * start a send that waits for the verification started under its storage id.
 */
export type TListVerificationEnded = (
  platform: TPlatform,
  trx: Executor,
  ended: { userId: number; jobId: number; listId: number; storageId: string | null; isFinished: boolean },
) => Promise<void>;

/** Told after a sending account was saved (e.g. to bring in a Mailgun domain's lists). */
export type TAccountSaved = (
  platform: TPlatform,
  account: { userId: number; accountId: number; provider: string; importLists: boolean },
) => Promise<{ message?: string } | undefined>;

/**
 * A module's part of a person's data on request (issue 48 §4, R46): every row of its tables
 * about one address of one user, and erasing them. The privacy module asks every
 * registered part, and erases through all of them in one transaction; a module whose table
 * can hold an address registers one (`privacy.test.ts` searches every table and column of
 * the schema, so a table left out is found).
 */
export type TPersonalData = {
  /** The rows about the address (any case), by table name. */
  find: (db: Executor, userId: number, email: string) => Promise<Record<string, unknown[]>>;
  /** Deletes them in the caller's transaction (or keeps only what must stay, hashed); answers the rows per table. */
  erase: (platform: TPlatform, trx: Executor, userId: number, email: string) => Promise<Record<string, number>>;
};

/**
 * Mails a double opt-in signup's confirmation (the signup module's email, through the
 * engine) in the caller's transaction; answers the send. Offered by lists for the member
 * calls by address (an API add to a double opt-in list asks the person, as a form does).
 */
export type TSendSignupConfirmation = (
  platform: TPlatform,
  trx: Executor,
  list: TFormList,
  signup: { email: string; fullname: string; fields: Record<string, string> },
  token: string,
) => Promise<number>;

/** A module's part of the hourly cleanup (R30): deletes what it no longer needs; answers what it deleted, by kind. */
export type TCleanup = (platform: TPlatform) => Promise<Record<string, number>>;

/** Whose key it is and what it may do. */
export type TApiKeyHolder = { keyId: number; userId: number; scopes: TApiKeyScope[] };

/**
 * Finds the holder of an API key (`Authorization: Bearer sw_…`), or null for a key that
 * is unknown or revoked (R45). The api-keys module registers it; `platform/http-security.ts`
 * asks it on every request that carries a key, so a revoked key is refused at once.
 */
export type TApiKeyAuthenticate = (platform: TPlatform, key: string) => Promise<TApiKeyHolder | null>;

/**
 * Something that happened which a user may be told of by webhook (issue 48 §3): a member
 * subscribed, a message bounced, a send finished. `orderingKey` names whose events must
 * arrive in order (the member's address, lower case; `send:<id>` for a send's).
 */
export type TOutboundEvent = {
  userId: number;
  type: TWebhookEventType;
  orderingKey: string;
  data: Record<string, unknown>;
  occurredAt?: Date;
};

/**
 * Takes events in the transaction of the change they tell of, so an event exists exactly
 * when its change committed (the webhooks module queues a delivery per endpoint). Called
 * through `emitEvents` (`platform/outbound-events.ts`) where outcomes are applied: the
 * engine's settles and ends, the intake's entry point, the member calls of lists.
 */
export type TEventSink = (platform: TPlatform, trx: Executor, events: TOutboundEvent[]) => Promise<void>;

/**
 * A breaker group (a drip campaign's messages) passed its account's line: its owner stops
 * what feeds it and tells its user, in the transaction of the trip (the engine's one breaker,
 * issue 44 §4). Each registered handler looks at the key's prefix (`campaign:`).
 */
export type TBreakerGroupTripped = (
  platform: TPlatform,
  trx: Executor,
  group: { key: string; userId: number; reason: string },
) => Promise<void>;

/**
 * What modules give each other through their registration, never by import-time side
 * effects and never by a lower module importing a higher one (DESIGN §7): the lower
 * module offers the hook, the higher one registers. Collected once from `modules/index.ts`
 * and carried by the platform (`platform.hooks`), so routes, services and jobs all see them.
 */
export type TModuleHooks = {
  /** What uses a list (scheduled sends, drip campaigns), asked before a list is deleted. */
  listUsageChecks: TListUsageCheck[];
  userInformation: TUserInformationPart[];
  /** Null when no module verifies addresses. */
  verifyImportedList: TVerifyImportedList | null;
  listVerificationEnded: TListVerificationEnded[];
  accountSaved: TAccountSaved[];
  /** SMTP listeners and the routes that take mail on them (`inbound/`). */
  inboundListeners: TInboundListener[];
  inboundRoutes: TInboundRoute[];
  /** Run by the system module's hourly cleanup job. */
  cleanups: TCleanup[];
  /** Every module's rows about one address (the privacy module's export and erase). */
  personalData: TPersonalData[];
  /** Null when no module offers API keys (every bearer request is then refused). */
  apiKeyAuth: TApiKeyAuthenticate | null;
  /** Null when no module mails confirmations (then an add by address to a double opt-in list is refused). */
  sendSignupConfirmation: TSendSignupConfirmation | null;
  /** Where events go (webhooks out). */
  eventSinks: TEventSink[];
  /** Who stops a breaker group that tripped (campaigns, for their messages). */
  breakerGroupTripped: TBreakerGroupTripped[];
};

export type TModuleOptions = { platform: TPlatform };

/**
 * A domain as the app and the worker see it: its routes (under /api), its recipient-facing
 * pages (at the root, outside the app shell), its jobs, and the hooks it offers others.
 */
export type TModule = {
  name: string;
  routes?: FastifyPluginAsyncZod<TModuleOptions>[];
  pages?: FastifyPluginAsyncZod<TModuleOptions>;
  jobs?: TJobDefinition[];
  /**
   * Runs once in each worker process after its job handlers start; answers how to stop it,
   * which the process awaits on shutdown, in the reverse order of the modules.
   */
  onWorkerStart?: (platform: TPlatform) => () => void | Promise<void>;
  listUsageCheck?: TListUsageCheck;
  userInformation?: TUserInformationPart;
  verifyImportedList?: TVerifyImportedList;
  listVerificationEnded?: TListVerificationEnded;
  accountSaved?: TAccountSaved;
  inboundListeners?: TInboundListener[];
  inboundRoutes?: TInboundRoute[];
  cleanup?: TCleanup;
  personalData?: TPersonalData;
  apiKeyAuth?: TApiKeyAuthenticate;
  sendSignupConfirmation?: TSendSignupConfirmation;
  eventSink?: TEventSink;
  breakerGroupTripped?: TBreakerGroupTripped;
};
