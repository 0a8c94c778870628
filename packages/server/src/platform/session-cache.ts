/**
 * Valid sessions this web process has recently looked up, so most requests skip one
 * database round trip. Correct across processes because every session end (sign-out,
 * new sign-in, password reset) publishes `session-closed` through PostgreSQL, which each
 * web process's realtime hub receives and evicts here; the process that ends a session
 * evicts it at once. While the hub's LISTEN connection is down, evictions could be
 * missed, so the cache answers nothing and every request reads the database.
 */
export type TSessionCache = {
  get: (idHex: string) => number | undefined;
  set: (idHex: string, userId: number, expiresAt: Date) => void;
  evict: (idHex: string) => void;
  /** Turned on and off by the realtime hub as its LISTEN connection comes and goes. */
  setTrusted: (isTrusted: boolean) => void;
};

type TEntry = { userId: number; validUntil: number };

export const createSessionCache = ({ ttlMs = 30_000, maxEntries = 50_000 } = {}): TSessionCache => {
  const entries = new Map<string, TEntry>();
  let isTrusted = false;
  return {
    get: (idHex) => {
      if (!isTrusted) return undefined;
      const entry = entries.get(idHex);
      if (!entry) return undefined;
      if (entry.validUntil <= Date.now()) {
        entries.delete(idHex);
        return undefined;
      }
      return entry.userId;
    },
    set: (idHex, userId, expiresAt) => {
      if (!isTrusted) return;
      // Oldest first out: Map keeps insertion order.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(idHex, { userId, validUntil: Math.min(Date.now() + ttlMs, expiresAt.getTime()) });
    },
    evict: (idHex) => {
      entries.delete(idHex);
    },
    setTrusted: (trusted) => {
      isTrusted = trusted;
      if (!trusted) entries.clear();
    },
  };
};
