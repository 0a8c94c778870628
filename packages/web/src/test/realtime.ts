import type { TRealtimeEventName, TRealtimePayload } from '@sendwell/contracts';
import { vi } from 'vitest';

/** Stands in for the browser's WebSocket; the test plays the server's part. */
export class FakeSocket {
  static instances: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  close = vi.fn();
  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
}

/** Replaces WebSocket until `vi.unstubAllGlobals()`; sockets opened before are not tracked. */
export const stubWebSocket = (): void => {
  FakeSocket.instances = [];
  vi.stubGlobal('WebSocket', FakeSocket);
};

export const latestSocket = (): FakeSocket => {
  const socket = FakeSocket.instances.at(-1);
  if (!socket) throw new Error('No socket was opened; call realtime.connect first.');
  return socket;
};

/** The server pushing one event over the latest socket. */
export const pushRealtimeEvent = <E extends TRealtimeEventName>(event: E, payload: TRealtimePayload<E>): void => {
  latestSocket().onmessage?.({ data: JSON.stringify({ event, payload }) });
};
