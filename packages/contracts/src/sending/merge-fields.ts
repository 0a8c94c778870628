/**
 * Merge fields: `{{field}}` or `{{field::fallback}}`. Names are letters, digits and
 * underscores, with optional spaces inside the braces; the fallback runs to the first `}`.
 *
 * Read by a scanner rather than a regular expression: templates run to 2,000,000
 * characters, and the pattern `\{\{\s*(\w+)\s*(?:::([^}]*))?\}\}` took quadratic time on
 * text such as `{{a::` repeated (13 s at 200 KB, hours at 2 MB, for every recipient). Every
 * character is looked at a bounded number of times (R24).
 */

export type TMergeField = {
  /** Where `{{` starts, and just past `}}`. */
  start: number;
  end: number;
  key: string;
  /** The text after `::`, untrimmed; undefined when the field has none. */
  fallback: string | undefined;
};

const isNameCode = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

/** What `\s` matches in JavaScript: the spaces allowed around a name. */
const isSpaceCode = (code: number) =>
  (code >= 9 && code <= 13) ||
  code === 32 ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/** Each merge field of a template, left to right, as the old pattern matched them. */
export function* mergeFieldsIn(template: string): Generator<TMergeField> {
  const length = template.length;
  // The first `}` at or after the fallback being read, found once and reused by the
  // fields that start before it (-1: there is none left), so fallbacks are scanned once.
  let closing = -2;
  let from = 0;
  for (;;) {
    const start = template.indexOf('{{', from);
    if (start < 0) return;
    // Where the next search starts when this `{{` turns out not to open a field.
    from = start + 1;
    let index = start + 2;
    while (index < length && isSpaceCode(template.charCodeAt(index))) index++;
    const nameStart = index;
    while (index < length && isNameCode(template.charCodeAt(index))) index++;
    if (index === nameStart) continue;
    const nameEnd = index;
    while (index < length && isSpaceCode(template.charCodeAt(index))) index++;
    let fallbackStart = -1;
    if (template.startsWith('::', index)) {
      fallbackStart = index + 2;
      if (closing !== -1 && closing < fallbackStart) closing = template.indexOf('}', fallbackStart);
      if (closing === -1) continue;
      index = closing;
    }
    if (!template.startsWith('}}', index)) continue;
    yield {
      start,
      end: index + 2,
      key: template.slice(nameStart, nameEnd),
      fallback: fallbackStart < 0 ? undefined : template.slice(fallbackStart, index),
    };
    from = index + 2;
  }
}

/** The template with each merge field replaced by what `replace` gives for it. */
export const replaceMergeFields = (template: string, replace: (field: TMergeField) => string) => {
  let result = '';
  let copied = 0;
  for (const field of mergeFieldsIn(template)) {
    result += template.slice(copied, field.start) + replace(field);
    copied = field.end;
  }
  return copied === 0 ? template : result + template.slice(copied);
};

export type TMergeRecipient = { email: string; name: string; fields: Record<string, unknown> };

/**
 * A recipient's own value for a name: `name` and `email` first, then their custom fields.
 * Own properties only: `{{constructor}}` or `{{__proto__}}` must find nothing rather than
 * an Object.prototype member (which threw, and the send was dispatched again forever).
 * Fields are stored JSON: numbers and booleans read as text, anything else as missing.
 */
const ownValue = (recipient: TMergeRecipient, key: string): string | undefined => {
  if (key === 'name') return recipient.name;
  if (key === 'email') return recipient.email;
  if (!Object.hasOwn(recipient.fields, key)) return nameValue(recipient, key);
  const value = recipient.fields[key];
  if (typeof value === 'string') return value.trim() ? value : (nameValue(recipient, key) ?? value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
};

/**
 * `first_name` and `last_name` of a recipient without such fields, read from the Name: the
 * first word, and the words after it ("Yara Smith" → "Yara", "Smith"). A field of that name
 * (an import's "First Name" column) wins.
 */
const nameValue = (recipient: TMergeRecipient, key: string): string | undefined => {
  if (key !== 'first_name' && key !== 'last_name') return undefined;
  const name = recipient.name.trim();
  const space = name.search(/\s/);
  if (key === 'first_name') return space === -1 ? name : name.slice(0, space);
  return space === -1 ? '' : name.slice(space).trim();
};

/** The field the engine fills with the recipient's unsubscribe page (the editor's footer block links it). */
export const UNSUBSCRIBE_FIELD = 'unsubscribe_url';

/** The merge fields every recipient has, beside their custom fields (the editor's Personalise menu). */
export const STANDARD_MERGE_FIELDS = [
  { key: 'first_name', label: 'First name' },
  { key: 'last_name', label: 'Last name' },
  { key: 'name', label: 'Full name' },
  { key: 'email', label: 'Email address' },
] as const;

/** A recipient's value for a merge field (the name as written, then in lower case), or the fallback when it is missing or blank. */
export const mergeValue = (recipient: TMergeRecipient, key: string, fallback: string | undefined) => {
  const value = ownValue(recipient, key) ?? ownValue(recipient, key.toLowerCase()) ?? '';
  return value.trim() ? value : (fallback ?? '');
};

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A template with each merge field filled in for one recipient; HTML-escaped when `isHtml`. */
export const renderMergeFields = (template: string, recipient: TMergeRecipient, isHtml: boolean) =>
  replaceMergeFields(template, ({ key, fallback }) => {
    const value = mergeValue(recipient, key, fallback);
    return isHtml ? escapeHtml(value) : value;
  });

/** The merge fields a template uses, each once, in order of first use. */
export const mergeFieldsOf = (template: string) => [
  ...new Set(Array.from(mergeFieldsIn(template), (field) => field.key)),
];

/**
 * A template as the screens show it without a recipient (History's subjects, issue 45 §4):
 * each field as its fallback (`{{name::friend}}` reads "friend"), or empty as for a
 * recipient without the value, spaces closed up. What a reader sees, not the raw braces.
 */
export const withFallbacks = (template: string) =>
  renderMergeFields(template, { email: '', name: '', fields: {} }, false)
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
