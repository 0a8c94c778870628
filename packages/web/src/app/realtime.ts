import {
  REALTIME_CLOSE,
  REALTIME_PATH,
  realtimeEvents,
  type TRealtimeEventName,
  type TRealtimePayload,
} from '@sendwell/contracts';
import { useEffect, useEffectEvent, useSyncExternalStore } from 'react';

export type TRealtimeState = 'connecting' | 'open' | 'closed';

type TConnectOptions = {
  /** The server closed with 4401: the session is gone. */
  onSignedOut: () => void;
  /** Open again after a drop: whatever happened meanwhile was not pushed, so screens should refetch. */
  onReconnected: () => void;
};

type TListener = (payload: unknown) => void;

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/** Jittered, so a server restart is not met by every tab reconnecting in the same instant. */
export const reconnectDelay = (attempt: number, random: () => number = Math.random): number => {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
};

const socketUrl = (): string => {
  const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${protocol}//${window.location.host}${REALTIME_PATH}`;
};

const isEventName = (name: unknown): name is TRealtimeEventName =>
  typeof name === 'string' && Object.hasOwn(realtimeEvents, name);

/** One socket per tab, shared by every subscriber; opened while signed in. */
const createRealtimeClient = () => {
  const listeners = new Map<TRealtimeEventName, Set<TListener>>();
  const stateListeners = new Set<() => void>();
  let state: TRealtimeState = 'closed';
  let socket: WebSocket | null = null;
  let options: TConnectOptions | null = null;
  /** Kept through `pause`, so `resume` can reopen with the same callbacks. */
  let pausedOptions: TConnectOptions | null = null;
  let attempt = 0;
  let hasOpened = false;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;

  const setState = (next: TRealtimeState) => {
    if (state === next) return;
    state = next;
    for (const listener of stateListeners) listener();
  };

  const dispatch = (data: unknown) => {
    if (typeof data !== 'string') return;
    let message: { event?: unknown; payload?: unknown };
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!isEventName(message.event)) return;
    const parsed = realtimeEvents[message.event].safeParse(message.payload);
    if (!parsed.success) return;
    for (const listener of listeners.get(message.event) ?? []) listener(parsed.data);
  };

  const clearRetry = () => {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
  };

  const open = () => {
    clearRetry();
    setState('connecting');
    const current = new WebSocket(socketUrl());
    socket = current;

    current.onopen = () => {
      attempt = 0;
      setState('open');
      if (hasOpened) options?.onReconnected();
      hasOpened = true;
    };
    current.onmessage = (event) => dispatch(event.data);
    current.onclose = (event) => {
      // A socket replaced by a newer one must not touch the client's state.
      if (socket !== current) return;
      socket = null;
      if (!options) {
        setState('closed');
        return;
      }

      if (event.code === REALTIME_CLOSE.signedOut || event.code === REALTIME_CLOSE.forbiddenOrigin) {
        // Retrying cannot help: no session, or a page the server will never trust.
        const { onSignedOut } = options;
        options = null;
        setState('closed');
        if (event.code === REALTIME_CLOSE.signedOut) onSignedOut();
        return;
      }
      setState('connecting');
      retryTimer = setTimeout(open, reconnectDelay(attempt++));
    };
  };

  /** Back online: waiting out the backoff would only delay what the user is waiting for. */
  const onOnline = () => {
    if (options && !socket) open();
  };

  const connect = (connectOptions: TConnectOptions) => {
    options = connectOptions;
    pausedOptions = null;
    if (socket) return;
    attempt = 0;
    hasOpened = false;
    window.addEventListener('online', onOnline);
    open();
  };

  const close = () => {
    options = null;
    clearRetry();
    window.removeEventListener('online', onOnline);
    const current = socket;
    socket = null;
    current?.close(1000, 'Signed out');
    setState('closed');
  };

  return {
    connect,
    disconnect: () => {
      pausedOptions = null;
      close();
    },
    /**
     * Signing out closes the socket from the server side (4401) while the sign-out request is
     * still answering; closing it first keeps that from being taken for an expired session.
     */
    pause: () => {
      pausedOptions = options;
      close();
    },
    /** The sign-out failed: the session is still there, and so should the live updates be. */
    resume: () => {
      if (pausedOptions) connect(pausedOptions);
    },
    subscribe: <E extends TRealtimeEventName>(event: E, handler: (payload: TRealtimePayload<E>) => void) => {
      const listener = handler as TListener;
      const set = listeners.get(event) ?? new Set<TListener>();
      set.add(listener);
      listeners.set(event, set);
      return () => {
        set.delete(listener);
      };
    },
    getState: () => state,
    subscribeState: (listener: () => void) => {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
  };
};

export const realtime = createRealtimeClient();

/** Subscribes the calling component to one event for as long as it is mounted. */
export const useRealtimeEvent = <E extends TRealtimeEventName>(
  event: E,
  handler: (payload: TRealtimePayload<E>) => void,
): void => {
  const onEvent = useEffectEvent(handler);
  useEffect(() => realtime.subscribe(event, (payload) => onEvent(payload)), [event]);
};

export const useRealtimeState = (): TRealtimeState =>
  useSyncExternalStore(realtime.subscribeState, realtime.getState, realtime.getState);

/** Keeps the socket open while the calling component (the signed-in shell) is mounted. */
export const useRealtimeConnection = (options: TConnectOptions): void => {
  const onSignedOut = useEffectEvent(options.onSignedOut);
  const onReconnected = useEffectEvent(options.onReconnected);
  useEffect(() => {
    realtime.connect({ onSignedOut: () => onSignedOut(), onReconnected: () => onReconnected() });
    return () => realtime.disconnect();
  }, []);
};
