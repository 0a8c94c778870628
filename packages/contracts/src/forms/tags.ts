import { readEmailCell } from '../lists/email';

/**
 * The tag input's rule (drip spec §5): a tag is accepted only if it passes the input's
 * validator (when it has one), is not already there and keeps within the limit. Added on
 * Enter, comma or Tab (the component's part); the rule is here so it reads the same
 * wherever a tag input is used.
 */
export const TAG_VALIDATORS = ['email', 'url', 'text', 'digits', 'isodate'] as const;
export type TTagValidator = (typeof TAG_VALIDATORS)[number];

export const TAG_MESSAGES: Record<TTagValidator | 'duplicate' | 'limit', string> = {
  email: 'This is not a valid email address.',
  url: 'This is not a web address (http:// or https://).',
  text: 'Write some text.',
  digits: 'Use digits only.',
  isodate: 'Write a date as YYYY-MM-DD.',
  duplicate: 'This is there already.',
  limit: 'No more can be added.',
};

/** What a validator makes of the text typed: the tag to keep (an address as read), or null. */
const READERS: Record<TTagValidator, (text: string) => string | null> = {
  email: (text) => readEmailCell(text).email,
  url: (text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'http:' || url.protocol === 'https:' ? text : null;
    } catch {
      return null;
    }
  },
  // Letters of some kind; no control characters (a pasted line break, a tab).
  text: (text) => (text !== '' && !/\p{Cc}/u.test(text) ? text : null),
  digits: (text) => (/^\d+$/.test(text) ? text : null),
  isodate: (text) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    if (!match) return null;
    const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
      ? text
      : null;
  },
};

export type TTagRule = { validator?: TTagValidator | undefined; limit?: number | undefined };

/** Whether `typed` may join `tags`: the tag as kept, or why not. Addresses are compared in any case. */
export const acceptTag = (
  tags: readonly string[],
  typed: string,
  { validator, limit }: TTagRule = {},
): { tag: string; problem: null } | { tag: null; problem: string } => {
  const text = typed.trim();
  const tag = validator ? READERS[validator](text) : text || null;
  if (tag === null) return { tag: null, problem: TAG_MESSAGES[validator ?? 'text'] };
  const same = (other: string) =>
    validator === 'email' || validator === 'url' ? other.toLowerCase() === tag.toLowerCase() : other === tag;
  if (tags.some(same)) return { tag: null, problem: TAG_MESSAGES.duplicate };
  if (limit !== undefined && tags.length >= limit) return { tag: null, problem: TAG_MESSAGES.limit };
  return { tag, problem: null };
};
