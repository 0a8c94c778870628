import { modules } from './modules';
import { openPlatform } from './platform/bootstrap';
import { hasWeb, hasWorker, loadConfig } from './platform/config';
import { startRealtimeHub, type TRealtimeHub } from './platform/realtime';

const fail = (error: unknown): never => {
  // A start-up failure is for a person at a terminal: the message, not a stack.
  console.error(`Sendwell could not start: ${(error as Error).message}`);
  process.exit(1);
};

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return fail(error);
  }
})();
const opened = await openPlatform(config).catch(fail);
const { platform } = opened;
const log = platform.log;

let hub: TRealtimeHub | undefined;
let app: Awaited<ReturnType<typeof import('./app').buildApp>> | undefined;

// A worker's watches (the engine's takeover of dead workers' claims, the inbound listeners:
// test inbox, bounces, test mailbox), stopped on shutdown in the reverse order of their start.
const stopWatches: (() => void | Promise<void>)[] = [];
if (hasWorker(config.role)) {
  await platform.queue.work(platform);
  // A worker is alive from its start (Operator → System counts presence locks), not from its first send.
  await platform.presence.hold();
  for (const module of modules) if (module.onWorkerStart) stopWatches.push(module.onWorkerStart(platform));
  log.info('worker started');
}
if (hasWeb(config.role)) {
  hub = await startRealtimeHub({
    url: opened.database.url,
    log,
    onSessionEnded: platform.sessionCache.evict,
    onListeningChange: platform.sessionCache.setTrusted,
  });
  // Loaded only where it serves: a worker process keeps the HTTP app out of its memory.
  const { buildApp } = await import('./app');
  app = await buildApp({ platform, hub });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = config.publicUrl ?? `http://localhost:${port}`;
  // Plain text on purpose: the one line a person starting Sendwell looks for.
  console.log(
    `\nSendwell is running at ${url} (role: ${config.role}${opened.embedded ? ', embedded PostgreSQL' : ''})\n`,
  );
}

let isStopping = false;
/**
 * A process stops like it starts, in order, leaving nothing in doubt (R37): the queue takes
 * no new job and every running job is told at once (`platform.stopping`), so a dispatch run
 * stops claiming, lets the messages in flight finish, records their answers, gives back
 * what it had not started and queues the send for another worker, while HTTP closes beside
 * it. Then the worker's watches and listeners, the queue (once its jobs are done), the pools
 * and the embedded PostgreSQL. A worker sending stops in about the time of its slowest
 * message in flight.
 */
const stop = async (signal: string) => {
  if (isStopping) return;
  isStopping = true;
  const startedAt = Date.now();
  log.info({ signal }, 'stopping');
  const timer = setTimeout(() => {
    log.error({ handles: process.getActiveResourcesInfo() }, 'shutdown took longer than 20 s; exiting');
    process.exit(1);
  }, 20_000);
  timer.unref();
  try {
    opened.beginStop();
    // Each step logged: a shutdown that hangs says where.
    // Requests in flight get 5 s to finish; then every connection left is cut (a client's
    // keep-alive socket held app.close() past the 20 s deadline in a loaded test run).
    const cutConnections = setTimeout(() => app?.server.closeAllConnections(), 5_000);
    cutConnections.unref();
    await app?.close();
    clearTimeout(cutConnections);
    log.info({ ms: Date.now() - startedAt }, 'stopping: HTTP closed');
    await hub?.close();
    log.info({ ms: Date.now() - startedAt }, 'stopping: realtime closed');
    for (const stopWatch of stopWatches.reverse()) await stopWatch();
    log.info({ ms: Date.now() - startedAt }, 'stopping: worker watches and inbound listeners closed');
    await opened.close();
    log.info({ ms: Date.now() - startedAt }, 'stopped');
    process.exit(0);
  } catch (error) {
    log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
// The terminal closing: PostgreSQL runs in its own session and would be left behind.
process.on('SIGHUP', () => void stop('SIGHUP'));
