/**
 * Group commit: items added while a run is in flight wait for the next run and go in it
 * together, so N callers at once cost one statement (and one commit) instead of N. An idle
 * batcher runs a lone item at once, without waiting for company. `run` answers one result
 * per item, in order; if it throws, every item of that run gets the error.
 */
export const groupCommit = <T, R>(run: (items: T[]) => Promise<R[]>) => {
  let waiting: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let isRunning = false;
  const drain = async () => {
    if (isRunning) return;
    isRunning = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting;
        waiting = [];
        try {
          const results = await run(batch.map((entry) => entry.item));
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as R);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      isRunning = false;
    }
  };
  return (item: T) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      void drain();
    });
};
