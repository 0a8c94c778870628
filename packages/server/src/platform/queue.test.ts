import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase } from '../../test/app';
import { waitFor } from '../../test/wait';
import type { TPlatform } from './context';
import { defineJob, startQueue, type TQueue } from './queue';

let url: string;
let queue: TQueue | null = null;
beforeAll(async () => {
  url = await createTestDatabase();
});
afterAll(async () => queue?.stop());

describe('a job kind that says what to do when a job is given up', () => {
  it('hands the job’s payload to onGivenUp once its last retry has failed, and only then', async () => {
    let attempts = 0;
    const givenUp: unknown[] = [];
    const failing = defineJob({
      name: 'test.always-fails',
      schema: z.object({ id: z.number() }),
      // Without NOTIFY for retries, a notify queue is polled every 30 s: this one every 2 s.
      queue: { retryLimit: 1, retryBackoff: false, retryDelay: 0, notify: false },
      handler: async () => {
        attempts += 1;
        throw new Error('the disk is full');
      },
      onGivenUp: async (data) => {
        givenUp.push({ ...data, attemptsBefore: attempts });
      },
    });
    queue = await startQueue({ url, jobs: [failing], isWorker: true, onError: () => {} });
    await queue.work({} as TPlatform);
    await queue.enqueue(failing, { id: 7 });
    await waitFor(() => givenUp.length > 0, 25_000, 'the job to be given up');
    // Tried, retried once, then given up: the handler saw every attempt first.
    expect(givenUp).toEqual([{ id: 7, attemptsBefore: 2 }]);
    expect(attempts).toBe(2);
  });
});
