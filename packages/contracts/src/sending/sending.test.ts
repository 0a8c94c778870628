import { describe, expect, it } from 'vitest';
import {
  dailyLimitWarning,
  deliverySlots,
  earliestDeliveryTime,
  formatDeliveryTime,
  isDeliverySlot,
  isSendLater,
  mergeFieldsOf,
  parseDeliveryTime,
  renderMergeFields,
  SEND_MESSAGES,
  senderAddress,
  senderDomain,
  senderPartsOf,
  sendFormIssues,
  smtpRemaining,
  type TAccountKind,
  ZSendEmailRequest,
} from './sending';

describe('sender address', () => {
  const base = { senderName: 'Ada Shop', alias: 'news', domain: 'example.com', useSubdomain: false };

  it('is the sender name alone for SMTP and Gmail accounts', () => {
    expect(senderAddress({ ...base, provider: 'smtp' })).toBe('Ada Shop');
    expect(senderAddress({ ...base, provider: 'google', senderName: '  Ada  ' })).toBe('Ada');
  });

  it("is 'Name <alias@domain>' for Mailgun, or 'alias@domain' without a name", () => {
    expect(senderAddress({ ...base, provider: 'mailgun' })).toBe('Ada Shop <news@example.com>');
    expect(senderAddress({ ...base, provider: 'mailgun', senderName: '   ' })).toBe('news@example.com');
  });

  it("drops the first label of an 'mg.' or 'mail.' domain unless the subdomain option is on", () => {
    expect(senderAddress({ ...base, provider: 'mailgun', domain: 'mg.example.com' })).toBe(
      'Ada Shop <news@example.com>',
    );
    expect(senderAddress({ ...base, provider: 'mailgun', domain: 'mail.example.com', senderName: '' })).toBe(
      'news@example.com',
    );
    expect(senderAddress({ ...base, provider: 'mailgun', domain: 'mg.example.com', useSubdomain: true })).toBe(
      'Ada Shop <news@mg.example.com>',
    );
  });

  it('drops the first label when mg. or mail. appears further in, and never leaves a bare TLD', () => {
    expect(senderDomain('eu.mg.example.com', false)).toBe('mg.example.com');
    expect(senderDomain('news.mail.example.org', false)).toBe('mail.example.org');
    expect(senderDomain('mail.com', false)).toBe('mail.com');
    expect(senderDomain('gmail.com', false)).toBe('gmail.com');
    expect(senderDomain('Mg.Example.COM', false)).toBe('example.com');
  });

  it("drops the first label whenever the domain contains 'mg.' or 'mail.', as the spec words it", () => {
    expect(senderDomain('email.example.com', false)).toBe('example.com');
    expect(senderDomain('newsmail.example.com', false)).toBe('example.com');
    expect(senderDomain('smg.example.com', false)).toBe('example.com');
    expect(senderDomain('mgmt.example.com', false)).toBe('mgmt.example.com');
    expect(senderDomain('email.example.com', true)).toBe('email.example.com');
  });
});

describe('merge fields', () => {
  const recipient = { email: 'ada@example.com', name: 'Ada', fields: { city: 'Paris', company: '  ' } };

  it('fills in name, email and custom fields', () => {
    expect(renderMergeFields('Hi {{name}} <{{email}}> from {{ city }}', recipient, false)).toBe(
      'Hi Ada <ada@example.com> from Paris',
    );
  });

  it('uses the fallback when the value is missing or blank, and nothing without one', () => {
    expect(renderMergeFields('{{company::your team}}|{{country::France}}|{{country}}|', recipient, false)).toBe(
      'your team|France||',
    );
    expect(renderMergeFields('{{name::friend}}', { ...recipient, name: '' }, false)).toBe('friend');
  });

  it('escapes values placed in HTML', () => {
    const evil = { ...recipient, name: '<script>alert(1)</script>' };
    expect(renderMergeFields('<p>{{name}}</p>', evil, true)).toBe('<p>&#60;script&#62;alert(1)&#60;/script&#62;</p>');
  });

  it('lists the fields a template uses once each', () => {
    expect(mergeFieldsOf('{{name}} {{city::x}} {{name::y}} {{ email }}')).toEqual(['name', 'city', 'email']);
  });
});

describe('SMTP daily cap', () => {
  it('remaining is the limit minus what was sent in the last 24 hours, never below 0', () => {
    expect(smtpRemaining(500, 120)).toBe(380);
    expect(smtpRemaining(500, 600)).toBe(0);
  });

  it('warns only the first N when the audience is larger than what is left', () => {
    const warning = dailyLimitWarning(500, 480, 100);
    expect(warning).toMatchObject({ kind: 'partial', remaining: 20 });
    expect(warning.kind === 'partial' && warning.message).toContain('only the first 20 recipients');
  });

  it('says the balance is 0 when nothing is left, and nothing when everyone fits', () => {
    expect(dailyLimitWarning(500, 500, 1)).toEqual({ kind: 'zero', message: SEND_MESSAGES.dailyLimitZero });
    expect(dailyLimitWarning(500, 100, 400)).toEqual({ kind: 'none' });
  });
});

describe('delivery time', () => {
  it('formats and parses YYYY-MM-DD hh:mm A in New York, summer and winter', () => {
    const summer = new Date('2026-07-01T16:05:00Z');
    expect(formatDeliveryTime(summer)).toBe('2026-07-01 12:05 PM');
    expect(parseDeliveryTime('2026-07-01 12:05 PM')?.toISOString()).toBe(summer.toISOString());
    const winter = new Date('2026-12-01T05:30:00Z');
    expect(formatDeliveryTime(winter)).toBe('2026-12-01 12:30 AM');
    expect(parseDeliveryTime('2026-12-01 12:30 AM')?.toISOString()).toBe(winter.toISOString());
  });

  it('uses the time zone it is given', () => {
    expect(parseDeliveryTime('2026-07-01 09:00 AM', 'Europe/Paris')?.toISOString()).toBe('2026-07-01T07:00:00.000Z');
  });

  it('refuses what is not a picker value', () => {
    for (const text of ['2026-07-01 13:05 PM', '2026-02-30 10:00 AM', '2026-07-01 10:00', 'tomorrow', '']) {
      expect(parseDeliveryTime(text)).toBeNull();
    }
  });

  it('offers 5-minute steps up to 23:30, and the earliest slot rounds now up', () => {
    const slots = deliverySlots();
    expect(slots[0]).toEqual({ value: '00:00', label: '12:00 AM' });
    expect(slots.at(-1)).toEqual({ value: '23:30', label: '11:30 PM' });
    expect(slots).toHaveLength(23 * 12 + 7);
    expect(earliestDeliveryTime(new Date('2026-07-01T16:01:10Z')).toISOString()).toBe('2026-07-01T16:05:00.000Z');
    expect(isDeliverySlot(parseDeliveryTime('2026-07-01 11:45 PM')!)).toBe(false);
    expect(isDeliverySlot(parseDeliveryTime('2026-07-01 11:07 AM')!)).toBe(false);
  });
});

describe('the send form', () => {
  const valid = { account: 3, to: [1], subject: 'Hello', message: '<p>Hi</p>' };
  const context = { allowsScheduling: true, timeZone: 'America/New_York', now: new Date('2026-07-01T12:00:00Z') };

  it('accepts a minimal form and trims header fields', () => {
    const form = ZSendEmailRequest.parse({ ...valid, senderName: '  Ada  ', subject: ' Hello ' });
    expect(form).toMatchObject({ senderName: 'Ada', subject: 'Hello', delivery: '', trackOpens: true });
  });

  it("takes the spec's field names: account, from, to, subject, cc, bcc, reply, message, delivery, sendLater, storageId", () => {
    const form = ZSendEmailRequest.parse({
      account: '3',
      from: 'Ada Shop <news@example.com>',
      to: ['1', 2],
      subject: 'Hello',
      cc: 'a@example.com',
      bcc: 'b@example.com',
      reply: 'reply@example.com',
      message: '<p>Hi</p>',
      delivery: '2026-07-02 10:00 AM',
      sendLater: true,
      storageId: 'upsell-1',
    });
    expect(form).toMatchObject({
      account: 3,
      from: 'Ada Shop <news@example.com>',
      to: [1, 2],
      reply: 'reply@example.com',
      delivery: '2026-07-02 10:00 AM',
      sendLater: true,
      storageId: 'upsell-1',
    });
    expect(ZSendEmailRequest.safeParse({ ...valid, to: undefined, mailingLists: [1] }).success).toBe(false);
  });

  it('refuses line breaks in subject, sender, sender name and reply-to (R18)', () => {
    for (const field of ['subject', 'from', 'senderName', 'reply', 'alias', 'cc']) {
      const result = ZSendEmailRequest.safeParse({ ...valid, [field]: 'a@example.com\r\nBcc: victim@example.com' });
      expect(result.success, field).toBe(false);
      expect(result.error?.issues.some((issue) => issue.message === SEND_MESSAGES.lineBreak)).toBe(true);
    }
  });

  it('gives the spec messages for missing fields', () => {
    const result = ZSendEmailRequest.safeParse({ account: '', to: [], subject: '', message: ' ' });
    const messages = result.error?.issues.map((issue) => issue.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        SEND_MESSAGES.accountRequired,
        SEND_MESSAGES.listsRequired,
        SEND_MESSAGES.subjectRequired,
        SEND_MESSAGES.messageRequired,
      ]),
    );
    expect(result.error?.issues.find((issue) => issue.message === SEND_MESSAGES.listsRequired)?.path).toEqual(['to']);
    expect(ZSendEmailRequest.safeParse({ ...valid, reply: 'nope' }).error?.issues[0]).toMatchObject({
      path: ['reply'],
      message: SEND_MESSAGES.replyToInvalid,
    });
    expect(ZSendEmailRequest.safeParse({ ...valid, cc: 'a@example.com, nope' }).error?.issues[0]?.message).toBe(
      SEND_MESSAGES.copyInvalid,
    );
  });

  it('needs a sender name for SMTP and Gmail, an alias for Mailgun', () => {
    const form = { senderName: '', alias: '', delivery: '' };
    expect(sendFormIssues(form, { ...context, provider: 'smtp' })).toEqual([
      { path: 'senderName', message: SEND_MESSAGES.senderNameRequired },
    ]);
    expect(sendFormIssues(form, { ...context, provider: 'google' })[0]?.path).toBe('senderName');
    expect(sendFormIssues(form, { ...context, provider: 'mailgun' })).toEqual([
      { path: 'alias', message: SEND_MESSAGES.aliasRequired },
    ]);
    expect(sendFormIssues({ ...form, alias: 'news' }, { ...context, provider: 'mailgun' })).toEqual([]);
  });

  it('reads the sender parts back from `from` when the request has only it', () => {
    const parts = (from: string, provider: TAccountKind = 'mailgun') =>
      senderPartsOf(ZSendEmailRequest.parse({ ...valid, from }), provider, 'mg.example.com');
    expect(parts('Ada Shop <news@example.com>')).toEqual({
      senderName: 'Ada Shop',
      alias: 'news',
      useSubdomain: false,
      isForeignDomain: false,
    });
    expect(parts('"Ada, Shop" <news@mg.example.com>')).toMatchObject({ senderName: 'Ada, Shop', useSubdomain: true });
    expect(parts('news@example.com')).toMatchObject({ senderName: '', alias: 'news', isForeignDomain: false });
    expect(parts('news@elsewhere.test')).toMatchObject({ isForeignDomain: true });
    expect(parts('Ada Shop', 'smtp')).toMatchObject({ senderName: 'Ada Shop', alias: '' });
    // Given parts win over `from`.
    const both = ZSendEmailRequest.parse({ ...valid, from: 'x@elsewhere.test', senderName: 'Ada', alias: 'hi' });
    expect(senderPartsOf(both, 'mailgun', 'example.com')).toMatchObject({ alias: 'hi', isForeignDomain: false });
    const issues = (from: string) =>
      sendFormIssues({ ...parts(from), delivery: '' }, { ...context, provider: 'mailgun' }).map((item) => item.path);
    expect(issues('news@elsewhere.test')).toEqual(['from']);
    expect(issues('Ada <bad alias@example.com>')).toEqual(['alias']);
  });

  it('checks the delivery time of a send later: the plan, the format, the step and the past', () => {
    const form = { senderName: 'Ada', alias: '' };
    const issue = (delivery: string, allowsScheduling = true, sendLater?: boolean) =>
      sendFormIssues({ ...form, delivery, sendLater }, { ...context, provider: 'smtp', allowsScheduling })[0];
    expect(issue('2026-07-01 10:00 AM', false)?.message).toBe(SEND_MESSAGES.scheduleUpgrade);
    expect(issue('soon')).toEqual({ path: 'delivery', message: SEND_MESSAGES.deliveryInvalid });
    expect(issue('2026-07-01 10:03 AM')?.message).toBe(SEND_MESSAGES.deliveryInvalid);
    expect(issue('2026-07-01 07:00 AM')?.message).toBe(SEND_MESSAGES.deliveryPast);
    expect(issue('2026-07-01 10:00 AM')).toBeUndefined();
    expect(issue('', true, true)?.message).toBe(SEND_MESSAGES.deliveryRequired);
    // Send later off: the email goes now, whatever the picker holds.
    expect(issue('soon', true, false)).toBeUndefined();
    expect(isSendLater({ delivery: '2026-07-01 10:00 AM', sendLater: false })).toBe(false);
    expect(isSendLater({ delivery: '2026-07-01 10:00 AM' })).toBe(true);
  });
});
