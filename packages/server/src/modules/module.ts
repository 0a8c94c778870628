import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../platform/context';
import type { TJobDefinition } from '../platform/queue';
import type { TListUsageCheck } from './lists/lists.service';

/** What modules give each other through their registration, never by import-time side effects. */
export type TModuleHooks = {
  /** What uses a list (scheduled sends, drip campaigns), asked before a list is deleted. */
  listUsageChecks: TListUsageCheck[];
};

export type TModuleOptions = { platform: TPlatform; hooks: TModuleHooks };

/**
 * A domain as the app and the worker see it: its routes (under /api), its recipient-facing
 * pages (at the root, outside the app shell), its jobs, and the hooks it offers others.
 */
export type TModule = {
  name: string;
  routes?: FastifyPluginAsyncZod<TModuleOptions>[];
  pages?: FastifyPluginAsyncZod<TModuleOptions>;
  jobs?: TJobDefinition[];
  /** Runs once in each worker process after its job handlers start; answers how to stop it. */
  onWorkerStart?: (platform: TPlatform) => () => void;
  listUsageCheck?: TListUsageCheck;
};
