export type TGroupCommitOptions = {
  /** Items one run takes at most; the rest wait for the next run. */
  maxItems?: number;
  /**
   * Runs in flight at once. With 1 (the default) items added while a run is in flight wait
   * for it to end and go in the next run together. With more, a group forming while runs
   * are in flight starts its own run after `lingerMs`, or as soon as it holds `maxItems`:
   * the runs' round trips and commits overlap (PostgreSQL flushes the WAL of commits that
   * wait at once with one write), instead of each group waiting for the one before it.
   */
  maxRunning?: number;
  /** How long a group forming while others run waits for company (with `maxRunning` > 1). */
  lingerMs?: number;
  /**
   * Whether a run of several items that threw should be repeated item by item, so that one
   * bad item fails only its own caller: true for an error an item can cause (a constraint,
   * a value the database refuses), false for one that would fail each again (the
   * connection lost). Without it every item of the run gets the error.
   */
  isolate?: (error: unknown) => boolean;
};

type TEntry<T, R> = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };

/**
 * Group commit: N callers at once cost one statement (and one commit) instead of N, each
 * answered only when the run holding its item has ended. An idle batcher runs a lone item
 * at once, without waiting for company. `run` answers one result per item, in order.
 */
export const groupCommit = <T, R>(
  run: (items: T[]) => Promise<R[]>,
  { maxItems = Number.POSITIVE_INFINITY, maxRunning = 1, lingerMs = 0, isolate }: TGroupCommitOptions = {},
) => {
  let waiting: TEntry<T, R>[] = [];
  let running = 0;
  /** Cancels the pending start of the group forming, if one is pending. */
  let lingering: (() => void) | undefined;

  const runGroup = async (group: TEntry<T, R>[]) => {
    try {
      const results = await run(group.map((entry) => entry.item));
      for (const [index, entry] of group.entries()) entry.resolve(results[index] as R);
    } catch (error) {
      if (group.length === 1 || !isolate?.(error)) {
        for (const entry of group) entry.reject(error);
        return;
      }
      // One by one: the items that fail alone are the ones that failed the group.
      for (const entry of group) {
        try {
          entry.resolve((await run([entry.item]))[0] as R);
        } catch (alone) {
          entry.reject(alone);
        }
      }
    }
  };

  const start = () => {
    lingering?.();
    lingering = undefined;
    const group = waiting.slice(0, maxItems);
    waiting = waiting.slice(group.length);
    running += 1;
    void runGroup(group).finally(() => {
      running -= 1;
      schedule();
    });
  };

  const schedule = () => {
    while (waiting.length > 0 && running < maxRunning) {
      // Nothing in flight, or a full group: no reason to wait.
      if (running === 0 || waiting.length >= maxItems) {
        start();
        continue;
      }
      if (!lingering) {
        const startLingered = () => {
          lingering = undefined;
          // All slots taken meanwhile: the next run's end starts the group.
          if (waiting.length > 0 && running < maxRunning) start();
          schedule();
        };
        // 0: what arrives in this turn of the event loop (its I/O read together) goes together.
        if (lingerMs > 0) {
          const timer = setTimeout(startLingered, lingerMs);
          lingering = () => clearTimeout(timer);
        } else {
          const immediate = setImmediate(startLingered);
          lingering = () => clearImmediate(immediate);
        }
      }
      return;
    }
  };

  return (item: T) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
};
