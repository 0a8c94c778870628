import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestApp, type TTestApp } from '../../../test/app';
import { startSmtpSink } from '../../../test/smtp-sink';

let t: TTestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({ SMTP_URL: sink.url, SUPPORT_EMAIL: 'support@sendwell.test' });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

describe('contact us', () => {
  it('mails the operator with the visitor as reply-to', async () => {
    const response = await createAgent(t.app).post('/api/contact-us', {
      name: 'Quinn Question',
      email: 'quinn@example.com',
      subject: 'Plans for agencies',
      message: 'Do you offer a plan for twenty seats?',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().status).toBe(true);
    const mail = await sink.waitFor('support@sendwell.test');
    expect(mail.subject).toBe('[Contact] Plans for agencies');
    expect(mail.replyTo?.text).toContain('quinn@example.com');
    expect(mail.text).toContain('Do you offer a plan for twenty seats?');
  });

  it('refuses an incomplete message, and limits a flood per IP', async () => {
    const agent = createAgent(t.app);
    const short = await agent.post('/api/contact-us', {
      name: 'Q',
      email: 'q@example.com',
      subject: 'Hi',
      message: 'hi',
    });
    expect(short.statusCode).toBe(422);
    expect(short.json().errors.message).toEqual(['Please write at least 10 characters.']);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      statuses.push(
        (
          await agent.post('/api/contact-us', {
            name: 'Q',
            email: 'q@example.com',
            subject: 'Hi',
            message: 'hello there!',
          })
        ).statusCode,
      );
    }
    expect(statuses.at(-1)).toBe(429);
  });
});
