import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { TAgent } from './app';

/** Solves the captcha the way the widget does: fetch a challenge, find the counter, send both back base64-encoded. */
export const solveCaptcha = async (agent: TAgent): Promise<string> => {
  const response = await agent.get('/api/captcha/challenge');
  if (response.statusCode !== 200) throw new Error(`challenge failed: ${response.statusCode} ${response.body}`);
  const challenge = response.json();
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('captcha not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
};

/** A multipart body as a browser's FormData sends it. */
export const multipart = async (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
};

/** Posts a registration as the web form does: multipart, with a freshly solved captcha unless given. */
export const registerThroughForm = async (agent: TAgent, fields: Record<string, string>) => {
  const altcha = fields.altcha ?? (await solveCaptcha(agent));
  const body = await multipart({ stripeToken: '', referred_by: '', ...fields, altcha });
  return agent.post('/api/register-with-subscribe', body.payload, { headers: body.headers });
};
