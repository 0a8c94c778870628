/**
 * Waits until `condition` holds, looking every `intervalMs`; fails after `timeoutMs`
 * naming `what` it waited for. For tests and benches that watch other processes.
 */
export const waitFor = async (
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
