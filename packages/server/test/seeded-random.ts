import { randomInt } from 'node:crypto';

/**
 * Random choices a test can replay (STYLE: a random choice in a test logs its seed, and a
 * seed can be given back). The seed is `TEST_SEED` when set, else a fresh one; it is logged
 * with the test's name, so a red run says how to run it again the same way:
 *
 *   TEST_SEED=123456789 npx vitest run packages/server/src/modules/delivery/crash.test.ts
 *
 * The numbers come from mulberry32, a small 32-bit generator: enough to spread kill points
 * and delays, and the same sequence for the same seed on every machine.
 */
export const seededRandom = (testName: string) => {
  const given = process.env.TEST_SEED;
  const seed = given !== undefined && /^\d+$/.test(given) ? Number(given) >>> 0 : randomInt(2 ** 32);
  console.log(`${testName}: random seed ${seed} (replay with TEST_SEED=${seed})`);
  let state = seed;
  /** The next number in [0, 1), as Math.random gives. */
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { seed, next };
};
