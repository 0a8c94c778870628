import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Google's OAuth 2 authorization server, as documented: the token
 * endpoint takes form-encoded `authorization_code` and `refresh_token` grants with the
 * client's id and secret and answers `{access_token, expires_in, refresh_token?}` or
 * `{error: 'invalid_grant'}`; the userinfo endpoint answers `{email, email_verified}` for
 * a current bearer token.
 */
export const startGoogleFake = async ({
  clientId,
  clientSecret,
  email,
}: {
  clientId: string;
  clientSecret: string;
  email: string;
}) => {
  const issued = new Set<string>();
  const grants: { grant_type: string; redirect_uri?: string }[] = [];
  let counter = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const send = (status: number, json: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(json));
      };
      const url = new URL(request.url ?? '/', 'http://google.test');
      if (request.method === 'POST' && url.pathname === '/token') {
        const form = Object.fromEntries(new URLSearchParams(body));
        grants.push({ grant_type: form.grant_type ?? '', redirect_uri: form.redirect_uri });
        if (form.client_id !== clientId || form.client_secret !== clientSecret)
          return send(401, { error: 'invalid_client' });
        const access = `access-${++counter}`;
        issued.add(access);
        if (form.grant_type === 'authorization_code' && form.code === 'good-code') {
          return send(200, {
            access_token: access,
            expires_in: 3599,
            refresh_token: 'refresh-1',
            token_type: 'Bearer',
          });
        }
        if (form.grant_type === 'refresh_token' && form.refresh_token === 'refresh-1') {
          return send(200, { access_token: access, expires_in: 3599, token_type: 'Bearer' });
        }
        return send(400, { error: 'invalid_grant' });
      }
      if (request.method === 'GET' && url.pathname === '/userinfo') {
        const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
        if (!issued.has(token)) return send(401, { error: 'invalid_token' });
        return send(200, { sub: '1234', email, email_verified: true });
      }
      return send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    env: {
      GOOGLE_CLIENT_ID: clientId,
      GOOGLE_CLIENT_SECRET: clientSecret,
      GOOGLE_AUTH_URL: `${base}/authorize`,
      GOOGLE_TOKEN_URL: `${base}/token`,
      GOOGLE_USERINFO_URL: `${base}/userinfo`,
    },
    grants,
    /** The access token the fake issued last. */
    latestAccessToken: () => `access-${counter}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
