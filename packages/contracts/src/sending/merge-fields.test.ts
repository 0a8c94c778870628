import { describe, expect, it } from 'vitest';
import { mergeFieldsIn, mergeFieldsOf, mergeValue, renderMergeFields, withFallbacks } from './merge-fields';

/** The pattern the scanner replaces, kept here as the reference for what a merge field is. */
const OLD_PATTERN = /\{\{\s*([A-Za-z0-9_]+)\s*(?:::([^}]*))?\}\}/g;

const oldMatches = (template: string) =>
  Array.from(template.matchAll(OLD_PATTERN), (match) => ({
    start: match.index,
    end: match.index + match[0].length,
    key: match[1],
    fallback: match[2],
  }));

/** A small seeded generator, so a failure can be replayed. */
const randomTexts = (seed: number, count: number, alphabet: string[]) => {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
  );
};

describe('merge field scanner', () => {
  it('finds exactly the fields the old pattern found, in templates people write', () => {
    const templates = [
      'Hi {{name}} <{{email}}> from {{ city }}',
      '{{company::your team}}|{{country::France}}|{{country}}|',
      '<p>Dear {{ first_name :: reader }},</p><a href="https://x.test/?u={{id}}">go</a>',
      '{{{name}}} {{ }} {{a b}} {{a::b}c}} {{a::}} {{::x}} {{a\n::line\nbreak}} {{a}',
      'no fields at all',
      '',
    ];
    for (const template of templates) expect([...mergeFieldsIn(template)], template).toEqual(oldMatches(template));
  });

  it('finds exactly the fields the old pattern found, in 20,000 random texts of braces, colons, names and spaces', () => {
    const alphabet = ['{', '{{', '}', '}}', ':', '::', 'a', 'B_1', ' ', '\n', '\u00a0', 'x', '-'];
    for (const template of randomTexts(7, 20_000, alphabet)) {
      expect([...mergeFieldsIn(template)], JSON.stringify(template)).toEqual(oldMatches(template));
    }
  });
});

describe('merge field values', () => {
  const recipient = { email: 'ada@example.com', name: 'Ada', fields: { city: 'Paris', Zip: '75001' } };

  it('finds nothing, rather than throwing, for names of Object.prototype members', () => {
    const template = '{{constructor}}|{{__proto__}}|{{toString::friend}}|{{hasOwnProperty}}|{{valueOf}}';
    expect(renderMergeFields(template, recipient, false)).toBe('||friend||');
    expect(renderMergeFields(template, recipient, true)).toBe('||friend||');
    expect(mergeValue(recipient, 'constructor', 'x')).toBe('x');
  });

  it("uses a recipient's own field even when it is named like one", () => {
    const own = { ...recipient, fields: JSON.parse('{"constructor":"Builder","__proto__":"Proto"}') };
    expect(renderMergeFields('{{constructor}} {{__proto__}}', own, false)).toBe('Builder Proto');
  });

  it('reads numbers and booleans stored in fields as text, and other values as missing', () => {
    const stored = { ...recipient, fields: { age: 42, vip: true, tags: ['a'], none: null } as Record<string, unknown> };
    expect(renderMergeFields('{{age}} {{vip}} {{tags::-}} {{none::-}}', stored, false)).toBe('42 true - -');
  });

  it('looks the name up as written, then in lower case', () => {
    expect(renderMergeFields('{{Zip}} {{NAME}} {{City}}', recipient, false)).toBe('75001 Ada Paris');
  });

  it('lists the fields a template uses once each', () => {
    expect(mergeFieldsOf('{{name}} {{city::x}} {{name::y}} {{ email }}')).toEqual(['name', 'city', 'email']);
  });
});

describe('a template shown without a recipient', () => {
  it('reads each field as its fallback, or as a recipient without the value reads it', () => {
    expect(withFallbacks('Welcome, {{name::friend}}')).toBe('Welcome, friend');
    expect(withFallbacks('Hello {{name}}, our news')).toBe('Hello, our news');
    expect(withFallbacks('{{ company :: your team }} and {{city}} news')).toBe('your team and news');
    expect(withFallbacks('No fields here')).toBe('No fields here');
  });
});
