import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket, latestSocket, stubWebSocket } from '../test/realtime';
import { realtime, reconnectDelay } from './realtime';

describe('realtime client', () => {
  const onSignedOut = vi.fn();
  const onReconnected = vi.fn();

  beforeEach(() => {
    vi.useFakeTimers();
    stubWebSocket();
    realtime.connect({ onSignedOut, onReconnected });
  });
  afterEach(() => {
    realtime.disconnect();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it('opens one socket on the realtime path and delivers valid events to subscribers', () => {
    const handler = vi.fn();
    const unsubscribe = realtime.subscribe('CreditBalanceEvent', handler);
    latestSocket().onopen?.();

    latestSocket().onmessage?.({
      data: JSON.stringify({ event: 'CreditBalanceEvent', payload: { totalCredit: 250, usedCredit: 40 } }),
    });
    latestSocket().onmessage?.({
      data: JSON.stringify({ event: 'CreditBalanceEvent', payload: { totalCredit: 'lots', usedCredit: 40 } }),
    });
    latestSocket().onmessage?.({ data: 'not json' });
    unsubscribe();
    latestSocket().onmessage?.({
      data: JSON.stringify({ event: 'CreditBalanceEvent', payload: { totalCredit: 9, usedCredit: 40 } }),
    });

    expect(FakeSocket.instances).toHaveLength(1);
    expect(latestSocket().url).toBe('ws://localhost:3000/api/realtime'.replace('localhost:3000', window.location.host));
    expect(handler.mock.calls).toEqual([[{ totalCredit: 250, usedCredit: 40 }]]);
    expect(realtime.getState()).toBe('open');
  });

  it('reconnects after a dropped connection and asks screens to refetch', () => {
    latestSocket().onopen?.();
    latestSocket().onclose?.({ code: 1006 });
    expect(realtime.getState()).toBe('connecting');

    vi.advanceTimersByTime(reconnectDelay(0, () => 1));
    expect(FakeSocket.instances).toHaveLength(2);
    latestSocket().onopen?.();
    expect(onReconnected).toHaveBeenCalledTimes(1);
  });

  it('stops and reports the sign-out when the server closes with 4401', () => {
    latestSocket().onopen?.();
    latestSocket().onclose?.({ code: 4401 });
    vi.advanceTimersByTime(60_000);

    expect(onSignedOut).toHaveBeenCalledTimes(1);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(realtime.getState()).toBe('closed');
  });

  it('waits longer after each failure, never more than 30 seconds', () => {
    expect(reconnectDelay(0, () => 1)).toBe(1_000);
    expect(reconnectDelay(3, () => 1)).toBe(8_000);
    expect(reconnectDelay(20, () => 1)).toBe(30_000);
    expect(reconnectDelay(20, () => 0)).toBe(15_000);
  });
});
