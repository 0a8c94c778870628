import type { TPlatform } from './context';

/**
 * The address users reach Sendwell at (`PUBLIC_URL`, else this machine's port): every link
 * Sendwell mails or puts in a message (reset links, tracking, unsubscribe, Google's redirect).
 */
export const publicUrl = (platform: Pick<TPlatform, 'config'>) =>
  platform.config.publicUrl ?? `http://localhost:${platform.config.port}`;
