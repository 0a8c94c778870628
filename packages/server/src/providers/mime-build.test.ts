import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { describe, expect, it } from 'vitest';
import { buildMime } from './mime-build';

/** What nodemailer's own streaming build writes for the same message. */
const built = (mail: Mail.Options & { baseBoundary?: string }) =>
  new MailComposer(mail as Mail.Options).compile().build();

const fixed = {
  date: new Date('2026-11-28T20:00:00Z'),
  baseBoundary: '0123456789abcdef',
  messageId: '<fixed@example.com>',
};

// Pieces real messages are made of: ASCII prose, German, Cyrillic, CJK, emoji, the characters
// quoted-printable and headers treat specially, and line breaks of every kind.
const piece = fc.constantFrom(
  'Hello there, ',
  'Grüße aus Köln. ',
  'Привет, мир! ',
  '東京の天気は晴れ。',
  '🎉🙂 ',
  '<p style="color:#333">A paragraph</p>',
  '<a href="https://example.com/path?x=1&amp;y=2">link</a>',
  '=3D ',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '.',
  '"quoted", (comment); <angle> ',
  'x'.repeat(90),
  '{{first_name}}',
);
const textOf = (maxPieces: number) => fc.array(piece, { maxLength: maxPieces }).map((pieces) => pieces.join(''));
const name = fc.constantFrom('', 'Sendwell', 'Jörg Müller', 'O\'Brien, "Pat"', '李小龙', 'Zoë 🎉', 'a'.repeat(80));
const address = fc.constantFrom(
  'news@example.com',
  'jörg@bücher.example',
  'user+tag@sub.example.co.uk',
  'info@пример.рф',
  'first.last@例え.jp',
);
const mail = fc.record({
  fromName: name,
  from: address,
  to: address,
  subject: textOf(12),
  html: textOf(60),
  text: textOf(40),
  replyTo: fc.option(address, { nil: undefined }),
  feedback: textOf(3),
});

describe('buildMime', () => {
  it('writes the bytes nodemailer’s streaming build writes, over random messages', async () => {
    await fc.assert(
      fc.asyncProperty(mail, async (m) => {
        const options: Mail.Options = {
          from: m.fromName ? { name: m.fromName, address: m.from } : m.from,
          to: m.to,
          subject: m.subject,
          html: m.html,
          text: m.text,
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          headers: {
            'List-Unsubscribe': '<https://sendwell.example/u/abc>, <mailto:news@example.com?subject=unsubscribe%20abc>',
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            'Feedback-ID': `42:7:send:${m.feedback}`,
            'Message-ID': '<ref.abc@example.com>',
          },
          ...fixed,
        };
        const ours = await buildMime(options);
        expect(ours.toString('latin1')).toBe((await built(options)).toString('latin1'));
      }),
      { numRuns: 300 },
    );
  });

  it('is equal past the encoders’ 64 KB slice and for bodies that end in whitespace or a bare CR', async () => {
    const bodies = [
      `${'Grüße '.repeat(20_000)}\n`,
      `${'a'.repeat(70_000)} \t `,
      `${'東京'.repeat(40_000)}`,
      'ends with a carriage return\r',
      '',
    ];
    for (const body of bodies) {
      const options = { from: 'news@example.com', to: 'a@example.com', subject: 's', html: body, text: body, ...fixed };
      expect((await buildMime(options)).equals(await built(options))).toBe(true);
    }
  });

  it('leaves a tree it does not know (an attachment from a stream) to nodemailer and reads back the same', async () => {
    const { Readable } = await import('node:stream');
    const options = {
      from: 'news@example.com',
      to: 'a@example.com',
      subject: 'With a file',
      text: 'See the file.',
      attachments: [{ filename: 'a.txt', content: Readable.from(['streamed ', 'content']) }],
      ...fixed,
    };
    const parsed = await simpleParser(await buildMime(options));
    expect(parsed.text?.trim()).toBe('See the file.');
    expect(parsed.attachments[0]?.content.toString()).toBe('streamed content');
  });

  it('gives every message a boundary of its own', async () => {
    const options = { from: 'news@example.com', to: 'a@example.com', subject: 's', html: '<p>x</p>', text: 'x' };
    const boundaryOf = async () => /boundary="([^"]+)"/.exec((await buildMime(options)).toString())?.[1];
    const boundaries = new Set(await Promise.all(Array.from({ length: 600 }, boundaryOf)));
    expect(boundaries.size).toBe(600);
  });
});
