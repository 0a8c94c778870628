import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { TModuleHooks } from '../modules/module';
import type { TStripe } from '../providers/stripe';
import type { TConfig } from './config';
import type { TCpuPool } from './cpu-pool';
import type { Db } from './db';
import type { TMailer } from './mailer';
import type { TPresence } from './presence';
import type { TQueue } from './queue';
import type { TSecrets } from './secrets';
import type { TSessionCache } from './session-cache';
import type { TSlotPool } from './shared-slots';

/**
 * What services and job handlers are given: the shared pieces of one process. Nothing
 * here holds state another process needs (DESIGN §1).
 */
export type TPlatform = {
  config: TConfig;
  db: Db;
  /** The delivery engine's checkpoints: a small pool that commits without waiting for the disk (see TDatabase). */
  checkpointDb: Db;
  /** The pool under `checkpointDb` (statements run by name, `runPrepared`). */
  checkpointPool: pg.Pool;
  /** The pool under `db`, for the few jobs that need a raw client (COPY for list imports). */
  pool: pg.Pool;
  queue: TQueue;
  secrets: TSecrets;
  mailer: TMailer;
  sessionCache: TSessionCache;
  /** Null when the operator has not configured Stripe. */
  stripe: TStripe | null;
  log: FastifyBaseLogger;
  /** This process's proof of life for the work it claims (sending). */
  presence: TPresence;
  /**
   * Aborted when the process begins to stop (SIGTERM, Ctrl-C), before anything closes:
   * long work takes nothing more, finishes and records what it holds, and hands the rest
   * back for another process (a dispatch run, R37). The queue fetches no new job from then on.
   */
  stopping: AbortSignal;
  /**
   * What modules registered with each other (`modules/index.ts`): how a lower module reaches
   * work a higher one does (verification after an import, unread tickets on the user's
   * information, inbound routes) without importing it.
   */
  hooks: TModuleHooks;
  /** Limits counted across every process, held in PostgreSQL (verification's connections per mail server, R36). */
  sharedSlots: TSlotPool;
  /** Threads for heavy message work (text parts, reading messages), off the event loop (R40). */
  cpu: TCpuPool;
};
