import { REGISTRATION_MESSAGES } from '@sendwell/contracts';
import { type Challenge, createChallenge, randomInt, type Solution, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { fieldError } from '../../platform/errors';

/** A challenge is good for ten minutes after it is issued. */
const CHALLENGE_TTL_MS = 10 * 60_000;
const ALGORITHM = 'PBKDF2/SHA-256';
/**
 * The solver tries counters from zero up to this range; with the default cost (1,000
 * PBKDF2 rounds per try) a browser finds it in about a second.
 */
const COUNTER_RANGE = { min: 2_000, max: 4_000 } as const;

const secretsOf = (platform: TPlatform) => {
  const key = platform.secrets.captchaKey.toString('hex');
  return { hmacSignatureSecret: key, hmacKeySignatureSecret: `${key}:key` };
};

/**
 * A signed ALTCHA challenge (self-hosted proof of work, no third party). Nothing is
 * stored: the signature proves we issued it, and the nonce is recorded only once used.
 */
export const issueChallenge = (platform: TPlatform): Promise<Challenge> =>
  createChallenge({
    algorithm: ALGORITHM,
    cost: platform.config.captchaCost,
    counter: randomInt(COUNTER_RANGE.max, COUNTER_RANGE.min),
    deriveKey,
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    ...secretsOf(platform),
  });

type TPayload = { challenge: Challenge; solution: Solution };

const parsePayload = (payload: string): TPayload | null => {
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Partial<TPayload>;
    if (typeof parsed?.challenge?.parameters?.nonce !== 'string' || typeof parsed.solution !== 'object') return null;
    return parsed as TPayload;
  } catch {
    return null;
  }
};

/**
 * Accepts the widget's payload once: it must answer a challenge we signed, not be
 * expired, and not have been used before (the nonce is recorded in the same step, so
 * two requests racing with one payload cannot both pass).
 */
export const consumeSolution = async (platform: TPlatform, db: Executor, payload: string): Promise<void> => {
  const parsed = payload ? parsePayload(payload) : null;
  if (!parsed) throw fieldError('altcha', REGISTRATION_MESSAGES.captcha);
  const result = await verifySolution({
    challenge: parsed.challenge,
    solution: parsed.solution,
    deriveKey,
    ...secretsOf(platform),
  }).catch(() => null);
  if (!result?.verified) throw fieldError('altcha', REGISTRATION_MESSAGES.captcha);
  const { nonce, expiresAt } = parsed.challenge.parameters;
  const recorded = await db
    .insertInto('captcha_solutions')
    .values({ nonce, expires_at: new Date((expiresAt ?? 0) * 1000 || Date.now() + CHALLENGE_TTL_MS) })
    .onConflict((conflict) => conflict.column('nonce').doNothing())
    .returning('nonce')
    .executeTakeFirst();
  if (!recorded) throw fieldError('altcha', REGISTRATION_MESSAGES.captcha);
};

export const deleteExpiredSolutions = (db: Executor) =>
  db.deleteFrom('captcha_solutions').where('expires_at', '<', new Date()).executeTakeFirst();

/** Registration's part of the hourly cleanup: used captchas past their expiry. */
export const cleanUpCaptchas = async (platform: TPlatform) => ({
  captchaSolutions: Number((await deleteExpiredSolutions(platform.db)).numDeletedRows),
});
