import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodResponseSerializer } from './serializer';

const serialize = (schema: z.ZodType, value: unknown) =>
  JSON.parse(zodResponseSerializer({ schema, method: 'GET', url: '/', httpStatus: '200' })(value));

describe('zodResponseSerializer', () => {
  it('writes only declared properties, so an extra column never leaks', () => {
    const schema = z.object({ data: z.array(z.object({ id: z.number(), email: z.string() })) });
    const out = serialize(schema, {
      data: [{ id: 1, email: 'a@example.com', password_hash: '$argon2id$…' }],
      debug: 1,
    });
    expect(out).toEqual({ data: [{ id: 1, email: 'a@example.com' }] });
  });

  it('keeps nulls, literals, enums and records as zod declares them', () => {
    const schema = z.object({
      status: z.literal(true),
      read_at: z.string().nullable(),
      state: z.enum(['ok', 'error']),
      errors: z.record(z.string(), z.array(z.string())),
    });
    const value = { status: true, read_at: null, state: 'ok', errors: { email: ['Taken.'] } };
    expect(serialize(schema, value)).toEqual(value);
  });
});
