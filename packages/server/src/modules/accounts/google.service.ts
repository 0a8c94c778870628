import { ACCOUNT_MESSAGES } from '@sendwell/contracts';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { DomainError, HttpError } from '../../platform/errors';
import { publicUrl } from '../../platform/public-url';
import { randomToken } from '../../platform/tokens';
import { planRulesOf } from '../plans/plans.service';
import * as repository from './accounts.repository';
import { openSecret, sealSecret } from './secrets';

/** Sending through Gmail over SMTP with XOAUTH2 needs the full mail scope; email names the mailbox. */
const SCOPES = ['openid', 'email', 'https://mail.google.com/'];
/** Refresh a little before Google's expiry, so a long send never starts with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;

const ZTokenResponse = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
});
const ZUserInfo = z.object({ email: z.string().email(), email_verified: z.boolean().optional() });

const emailOfUser = async (platform: TPlatform, userId: number) =>
  (await platform.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email;

/**
 * What Google's JavaScript code client (popup mode) uses as the redirect URI of the codes
 * it hands to the page; the code is then traded with this value.
 */
export const GOOGLE_POPUP_REDIRECT_URI = 'postmessage';

export const googleRedirectUri = (platform: TPlatform) => `${publicUrl(platform)}/api/login/google/callback`;

/** Google is offered when configured, and in test mode only to the listed emails (spec §6). */
export const isGoogleOffered = (platform: TPlatform, email: string) => {
  const { google } = platform.config;
  return google.enabled && (google.testUsers.length === 0 || google.testUsers.includes(email.toLowerCase()));
};

/** Step one of the authorization code flow: where to send the browser, and the state to remember. */
export const startGoogleLogin = (platform: TPlatform, email: string) => {
  if (!isGoogleOffered(platform, email)) throw new HttpError(404, 'Google accounts are not available on this server.');
  const state = randomToken();
  const url = new URL(platform.config.google.authUrl);
  url.search = new URLSearchParams({
    client_id: platform.config.google.clientId!,
    redirect_uri: googleRedirectUri(platform),
    response_type: 'code',
    scope: SCOPES.join(' '),
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state,
  }).toString();
  return { url: url.toString(), state };
};

const requestTokens = async (platform: TPlatform, params: Record<string, string>) => {
  const { google } = platform.config;
  const response = await fetch(google.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ client_id: google.clientId!, client_secret: google.clientSecret!, ...params }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = await response.json().catch(() => null);
  const parsed = ZTokenResponse.safeParse(body);
  if (!response.ok || !parsed.success) {
    platform.log.warn(
      { status: response.status, error: (body as { error?: string } | null)?.error },
      'Google token request failed',
    );
    throw new HttpError(
      502,
      'Google did not accept the sign-in. Please try connecting the account again.',
      'GOOGLE_TOKEN',
    );
  }
  return parsed.data;
};

/**
 * Step two: trade the code for tokens, learn the mailbox's address, and keep the account
 * (a new one, or the user's existing account for that mailbox), tokens encrypted.
 */
export const finishGoogleLogin = async (
  platform: TPlatform,
  userId: number,
  code: string,
  redirectUri = googleRedirectUri(platform),
) => {
  if (!isGoogleOffered(platform, await emailOfUser(platform, userId))) {
    throw new HttpError(404, 'Google accounts are not available on this server.');
  }
  // Refused before the code is spent: a plan without accounts connects none, new or again (R23).
  if (!(await planRulesOf(platform, platform.db, userId)).allows_accounts) {
    throw new DomainError('upgrade-required', ACCOUNT_MESSAGES.upgrade);
  }
  const tokens = await requestTokens(platform, {
    code,
    grant_type: 'authorization_code',
    redirect_uri: redirectUri,
  });
  if (!tokens.refresh_token) {
    throw new HttpError(
      502,
      'Google did not grant offline access. Please try connecting the account again.',
      'GOOGLE_TOKEN',
    );
  }
  const infoResponse = await fetch(platform.config.google.userinfoUrl, {
    headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' },
    signal: AbortSignal.timeout(15_000),
  });
  const info = ZUserInfo.safeParse(await infoResponse.json().catch(() => null));
  if (!infoResponse.ok || !info.success) {
    throw new HttpError(502, 'Google did not tell us which mailbox this is. Please try again.', 'GOOGLE_USERINFO');
  }
  const email = info.data.email.toLowerCase();
  const { google } = platform.config;

  return platform.db.transaction().execute(async (trx) => {
    const existing = (await repository.listAccountRows(trx, userId)).find(
      (row) => row.provider === 'google' && row.google_email === email,
    );
    if (!(await planRulesOf(platform, trx, userId)).allows_accounts) {
      throw new DomainError('upgrade-required', ACCOUNT_MESSAGES.upgrade);
    }
    const id =
      existing?.id ??
      (
        await repository.insertAccountRow(trx, {
          user_id: userId,
          name: email,
          provider: 'google',
          driver: 'gmail',
          username: email,
          google_email: email,
          host: google.smtpHost,
          port: google.smtpPort,
          encryption: 'ssl',
          mail_per_day: 500,
          is_primary: !(await repository.hasPrimary(trx, userId)),
        })
      ).id;
    await repository.updateAccountRow(trx, userId, id, {
      password_encrypted: null,
      oauth_refresh_token_encrypted: sealSecret(platform, id, 'oauth_refresh_token', tokens.refresh_token!),
      oauth_access_token_encrypted: sealSecret(platform, id, 'oauth_access_token', tokens.access_token),
      oauth_expires_at: new Date(Date.now() + tokens.expires_in * 1000),
    });
    return { id, email };
  });
};

/** A current access token for a Google account: the stored one, or a fresh one from its refresh token. */
export const googleAccessToken = async (platform: TPlatform, row: repository.TAccountRow): Promise<string> => {
  const current = openSecret(platform, row.id, 'oauth_access_token', row.oauth_access_token_encrypted);
  if (current && row.oauth_expires_at && row.oauth_expires_at.getTime() - REFRESH_MARGIN_MS > Date.now())
    return current;
  const refreshToken = openSecret(platform, row.id, 'oauth_refresh_token', row.oauth_refresh_token_encrypted);
  if (!refreshToken) throw new HttpError(409, 'This Google account needs to be connected again.', 'GOOGLE_RECONNECT');
  const tokens = await requestTokens(platform, { refresh_token: refreshToken, grant_type: 'refresh_token' });
  await repository.updateAccountRow(platform.db, row.user_id, row.id, {
    oauth_access_token_encrypted: sealSecret(platform, row.id, 'oauth_access_token', tokens.access_token),
    oauth_expires_at: new Date(Date.now() + tokens.expires_in * 1000),
    ...(tokens.refresh_token
      ? { oauth_refresh_token_encrypted: sealSecret(platform, row.id, 'oauth_refresh_token', tokens.refresh_token) }
      : {}),
  });
  return tokens.access_token;
};
