/**
 * How long a test waits for another process to do something (start, print a line, finish
 * a send, stop). The headroom of a loaded machine: with other test runs beside it, the
 * load average on these 2 cores reaches 15–20 and a server that starts in 2 s alone takes
 * 30 or more. Never a measure of speed; speed is measured in bench/.
 */
export const PROCESS_PATIENCE_MS = 240_000;

/**
 * How long a test waits for something in its own process or a peer on loopback: a NOTIFY
 * to arrive, a job to run, a socket to close. The same headroom, for lighter work.
 */
export const PATIENCE_MS = 60_000;

/** The timeout of a test that starts processes and waits on them more than once. */
export const PROCESS_TEST_TIMEOUT_MS = 3 * PROCESS_PATIENCE_MS;

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
