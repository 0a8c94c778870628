import { REALTIME_CLOSE, realtimeEvents, type TRealtimeEventName, type TRealtimePayload } from '@sendwell/contracts';
import { sql } from 'kysely';
import pg from 'pg';
import type { WebSocket } from 'ws';
import { type Executor, endQuietly, isDatabaseShutdown } from './db';

/**
 * Cross-process fan-out for the private per-user channel. Any process (web or worker)
 * publishes with `pg_notify`; every web process LISTENs and forwards to the sockets of
 * that user it holds. Published inside a transaction, a message goes out only at commit.
 */
export const REALTIME_CHANNEL = 'sendwell_realtime';

// PostgreSQL refuses NOTIFY payloads of 8000 bytes or more.
const MAX_PAYLOAD_BYTES = 7900;

type TWireMessage =
  | { kind: 'event'; userId: number; event: TRealtimeEventName; payload: unknown }
  | { kind: 'session-closed'; sessionId: string };

const notify = async (executor: Executor, message: TWireMessage) => {
  const text = JSON.stringify(message);
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    throw new Error(`Realtime payload too large (${Buffer.byteLength(text)} bytes); send ids and let the page fetch.`);
  }
  await sql`select pg_notify(${REALTIME_CHANNEL}, ${text})`.execute(executor);
};

/** Sends `{event, payload}` to every open tab of one user, from any process. */
export const publishToUser = async <E extends TRealtimeEventName>(
  executor: Executor,
  userId: number,
  event: E,
  payload: TRealtimePayload<E>,
): Promise<void> => {
  const checked = realtimeEvents[event].parse(payload);
  await notify(executor, { kind: 'event', userId, event, payload: checked });
};

/**
 * Tells every web process a session has ended (sign-out, new sign-in, password reset):
 * they close its sockets and drop it from their session caches. Call it in the
 * transaction that deletes the session, so it is announced only if the delete commits.
 */
export const announceSessionEnd = (executor: Executor, sessionId: string) =>
  notify(executor, { kind: 'session-closed', sessionId });

type TConnection = { socket: WebSocket; sessionId: string };

export type TRealtimeHub = {
  add: (userId: number, sessionId: string, socket: WebSocket) => void;
  connectionCount: () => number;
  isListening: () => boolean;
  close: () => Promise<void>;
};

/**
 * The web process side: one dedicated connection LISTENs (a pooled one would be handed
 * to other queries); it reconnects with capped backoff when the database goes away.
 */
export const startRealtimeHub = async ({
  url,
  log,
  onSessionEnded,
  onListeningChange,
}: {
  url: string;
  log: { warn: (object: object, message: string) => void };
  onSessionEnded?: (sessionId: string) => void;
  /** Whether session-end announcements are reaching this process (the session cache relies on it). */
  onListeningChange?: (isListening: boolean) => void;
}): Promise<TRealtimeHub> => {
  const byUser = new Map<number, Set<TConnection>>();
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retryDelay = 250;

  const dispatch = (text: string) => {
    let message: TWireMessage;
    try {
      message = JSON.parse(text) as TWireMessage;
    } catch {
      return;
    }
    if (message.kind === 'event') {
      const frame = JSON.stringify({ event: message.event, payload: message.payload });
      for (const connection of byUser.get(message.userId) ?? []) connection.socket.send(frame);
      return;
    }
    onSessionEnded?.(message.sessionId);
    for (const connections of byUser.values()) {
      for (const connection of connections) {
        if (connection.sessionId === message.sessionId) connection.socket.close(REALTIME_CLOSE.signedOut, 'Signed out');
      }
    }
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (notification) => {
      if (notification.channel === REALTIME_CHANNEL && notification.payload) dispatch(notification.payload);
    });
    next.on('error', (error) => {
      listening = false;
      onListeningChange?.(false);
      if (!isDatabaseShutdown(error)) log.warn({ err: error }, 'realtime listener lost its database connection');
      void endQuietly(next);
      scheduleReconnect();
    });
    await next.connect();
    await next.query(`listen ${REALTIME_CHANNEL}`);
    client = next;
    listening = true;
    onListeningChange?.(true);
    retryDelay = 250;
  };

  const scheduleReconnect = () => {
    if (closed) return;
    const delay = retryDelay;
    retryDelay = Math.min(retryDelay * 2, 10_000);
    setTimeout(() => {
      if (closed) return;
      connect().catch(() => scheduleReconnect());
    }, delay).unref();
  };

  await connect();

  return {
    add: (userId, sessionId, socket) => {
      const connection = { socket, sessionId };
      let connections = byUser.get(userId);
      if (!connections) {
        connections = new Set();
        byUser.set(userId, connections);
      }
      connections.add(connection);
      socket.on('close', () => {
        connections.delete(connection);
        if (connections.size === 0) byUser.delete(userId);
      });
    },
    connectionCount: () => [...byUser.values()].reduce((sum, connections) => sum + connections.size, 0),
    isListening: () => listening,
    close: async () => {
      closed = true;
      listening = false;
      onListeningChange?.(false);
      for (const connections of byUser.values()) {
        for (const connection of connections) connection.socket.close(1001, 'Server shutting down');
      }
      await endQuietly(client);
    },
  };
};
