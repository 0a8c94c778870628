import { AB_MESSAGES, SEND_MESSAGES } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import { buildSendAccount, buildSmtpSendAccount } from './send-email.fixtures';
import {
  abTestSummary,
  deliveryTimeOf,
  fromLine,
  initialSendFormValues,
  offersSubdomain,
  slotsFor,
  type TSendFormValues,
  todayIn,
  toSendRequest,
  validateSendForm,
} from './send-email.form';
import { isHtmlFile, PREVIEW_CSP, previewDocument, previewText } from './send-email.preview';

const filled = (overrides: Partial<TSendFormValues> = {}): TSendFormValues => ({
  ...initialSendFormValues(1),
  senderName: ' Sam ',
  alias: 'news',
  to: ['5'],
  subject: 'Hello',
  message: '<p>Hi</p>',
  ...overrides,
});

const mailgun = {
  provider: 'mailgun' as const,
  domain: 'mg.example.com',
  allowsScheduling: true,
  timeZone: 'America/New_York',
};

describe('the A/B test fields', () => {
  it('sends the wait in minutes, decimals kept, and a third subject only when shown', () => {
    const result = validateSendForm(
      filled({ abTest: true, subjectB: 'Hi', subjectC: 'Hey', abWaitValue: 1.5, abWaitUnit: 'hours' }),
      mailgun,
    );
    expect(result.ok && result.request).toMatchObject({
      abTest: true,
      subjectB: 'Hi',
      subjectC: '',
      abWaitMinutes: 90,
      abTestPercent: 20,
      abMetric: 'opens',
    });
    const seconds = validateSendForm(
      filled({ abTest: true, subjectB: 'Hi', abWaitValue: 0.1, abWaitUnit: 'minutes' }),
      mailgun,
    );
    expect(seconds.ok && seconds.request.abWaitMinutes).toBe(0.1);
    expect(abTestSummary(filled({ abTest: true, subjectB: 'Hi' }), 100)).toBe(
      '2 subjects, 10 recipients each now; after 4 hours the better open rate goes to the other 80.',
    );
  });

  it('sends an A/B test now, whatever time was picked before it was switched on (issue 45 §3)', () => {
    const picked = validateSendForm(
      filled({ abTest: true, subjectB: 'Hi', deliveryDate: '2027-01-05', deliverySlot: '09:00' }),
      mailgun,
    );
    expect(picked.ok && picked.request).toMatchObject({ abTest: true, delivery: '', sendLater: false });
  });

  it('names what an A/B test lacks on its own field, and nothing when it is off', () => {
    const missing = validateSendForm(filled({ abTest: true, abWaitValue: '', trackOpens: false }), mailgun);
    expect(missing.ok ? null : missing.errors).toMatchObject({
      subjectB: AB_MESSAGES.subjectBRequired,
      abWaitMinutes: AB_MESSAGES.wait,
      abMetric: AB_MESSAGES.opensUntracked,
    });
    expect(validateSendForm(filled({ abTest: false, abWaitValue: '', abTestPercent: '' }), mailgun).ok).toBe(true);
  });
});

describe('send form', () => {
  it('joins the picked day and time as YYYY-MM-DD hh:mm A, and keeps half a choice so it is refused', () => {
    expect(deliveryTimeOf({ deliveryDate: '2026-11-25', deliverySlot: '14:30' })).toBe('2026-11-25 02:30 PM');
    expect(deliveryTimeOf({ deliveryDate: '2026-11-25', deliverySlot: '00:05' })).toBe('2026-11-25 12:05 AM');
    expect(deliveryTimeOf({ deliveryDate: null, deliverySlot: null })).toBe('');
    const halfChosen = validateSendForm(filled({ deliveryDate: '2026-11-25' }), mailgun);
    expect(halfChosen.ok ? null : halfChosen.errors.delivery).toBe(SEND_MESSAGES.deliveryInvalid);
  });

  it('sends no alias for an SMTP account, and trims what it sends', () => {
    const result = validateSendForm(filled({ alias: 'not used!' }), { ...mailgun, provider: 'smtp' });
    expect(result.ok && result.request).toMatchObject({ senderName: 'Sam', alias: '', useSubdomain: false });
    expect(toSendRequest(filled({ useSubdomain: true }), mailgun)).toMatchObject({
      alias: 'news',
      useSubdomain: true,
    });
  });

  it("posts the spec's field names: from, to, reply, delivery and sendLater beside the sender's parts", () => {
    const values = filled({ reply: 'replies@example.com', deliveryDate: '2030-01-02', deliverySlot: '10:00' });
    expect(toSendRequest(values, mailgun)).toMatchObject({
      account: 1,
      from: 'Sam <news@example.com>',
      senderName: ' Sam ',
      alias: 'news',
      to: [5],
      reply: 'replies@example.com',
      delivery: '2030-01-02 10:00 AM',
      sendLater: true,
    });
    expect(toSendRequest(filled(), { provider: 'smtp', domain: '' })).toMatchObject({
      from: 'Sam',
      delivery: '',
      sendLater: false,
    });
    const result = validateSendForm(values, mailgun);
    expect(result.ok && Object.keys(result.request)).not.toContain('mailingLists');
  });

  it('needs a sender name from SMTP and Gmail accounts and an alias from Mailgun ones', () => {
    const smtp = validateSendForm(filled({ senderName: '', alias: '' }), { ...mailgun, provider: 'smtp' });
    expect(smtp.ok ? {} : smtp.errors).toEqual({ senderName: SEND_MESSAGES.senderNameRequired });
    const google = validateSendForm(filled({ senderName: '' }), { ...mailgun, provider: 'google' });
    expect(google.ok ? {} : google.errors).toEqual({ senderName: SEND_MESSAGES.senderNameRequired });
    const provider = validateSendForm(filled({ senderName: '', alias: '' }), mailgun);
    expect(provider.ok ? {} : provider.errors).toEqual({ alias: SEND_MESSAGES.aliasRequired });
  });

  it('refuses a delivery time when the plan does not allow scheduling', () => {
    const result = validateSendForm(filled({ deliveryDate: '2030-01-02', deliverySlot: '10:00' }), {
      ...mailgun,
      allowsScheduling: false,
    });
    expect(result.ok ? {} : result.errors).toEqual({ delivery: SEND_MESSAGES.scheduleUpgrade });
  });

  it('refuses a line break in a header field', () => {
    const result = validateSendForm(filled({ subject: 'Hi\r\nBcc: everyone@example.com' }), mailgun);
    expect(result.ok ? {} : result.errors).toEqual({ subject: SEND_MESSAGES.lineBreak });
  });

  it('shows the From line as recipients see it', () => {
    expect(fromLine(filled(), buildSendAccount())).toBe('Sam <news@example.com>');
    expect(fromLine(filled({ useSubdomain: true }), buildSendAccount())).toBe('Sam <news@mg.example.com>');
    expect(fromLine(filled({ senderName: '' }), buildSendAccount())).toBe('news@example.com');
    expect(fromLine(filled(), buildSmtpSendAccount())).toBe('Sam <office@example.com>');
    expect(offersSubdomain('mail.example.com')).toBe(true);
    expect(offersSubdomain('example.com')).toBe(false);
  });

  it("offers today's times from the next 5-minute step on, in the user's zone", () => {
    // 10:02 AM in New York, 3:02 PM in UTC.
    const now = new Date('2026-11-22T15:02:00Z');
    expect(todayIn('America/New_York', now)).toBe('2026-11-22');
    const today = slotsFor('2026-11-22', 'America/New_York', now);
    expect(today.find((slot) => slot.value === '10:00')).toMatchObject({ disabled: true });
    expect(today.find((slot) => slot.value === '10:05')).toMatchObject({ disabled: false });
    expect(today.at(-1)).toMatchObject({ value: '23:30', label: '11:30 PM' });
    expect(slotsFor('2026-11-23', 'America/New_York', now).every((slot) => !('disabled' in slot))).toBe(true);
    // At 11:50 PM nothing is left today.
    const late = slotsFor('2026-11-22', 'America/New_York', new Date('2026-11-23T04:50:00Z'));
    expect(late.every((slot) => 'disabled' in slot && slot.disabled)).toBe(true);
  });
});

describe('preview', () => {
  it('puts its CSP first, after the doctype, and fills merge fields with escaped sample values', () => {
    const html = previewDocument('<!DOCTYPE html><html><body>Hi {{name}} {{company::there}}</body></html>');
    expect(html).toBe(
      `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}"><html><body>Hi Ada Lovelace there</body></html>`,
    );
    expect(previewDocument('<p>{{email}}</p>')).toMatch(
      /^<meta http-equiv="Content-Security-Policy"[^>]*><p>ada@example.com<\/p>$/,
    );
    expect(previewText('For {{name::you}} <b>')).toBe('For Ada Lovelace <b>');
  });

  it('takes .html and .htm files, or a file the browser calls text/html', () => {
    expect(isHtmlFile(new File([''], 'letter.HTM'))).toBe(true);
    expect(isHtmlFile(new File([''], 'letter', { type: 'text/html' }))).toBe(true);
    expect(isHtmlFile(new File([''], 'members.csv', { type: 'text/csv' }))).toBe(false);
  });
});
