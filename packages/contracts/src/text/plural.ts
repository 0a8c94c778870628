/**
 * Counts in words (issue 45 §1): "1 send", "2 sends", "1,234 recipients". English has two
 * plural forms, but which one a number takes is the language's rule, not `count === 1`
 * (`Intl.PluralRules`: 1 is "one"; 0, 1.5 and 2 are "other"), so every screen and message
 * asks here and none writes its own ternary.
 */
const RULES = new Intl.PluralRules('en-US');
const NUMBER = new Intl.NumberFormat('en-US');

/** A noun's two English forms; `other` defaults to `one` + "s". */
export type TNoun = string | { one: string; other: string };

const formsOf = (noun: TNoun) => (typeof noun === 'string' ? { one: noun, other: `${noun}s` } : noun);

/** The noun's form for this count: `pluralOf(1, 'send')` is "send", `pluralOf(2, 'send')` "sends". */
export const pluralOf = (count: number, noun: TNoun) => {
  const forms = formsOf(noun);
  return RULES.select(count) === 'one' ? forms.one : forms.other;
};

/** The count and its noun: `counted(1, 'send')` is "1 send", `counted(1234, 'send')` "1,234 sends". */
export const counted = (count: number, noun: TNoun) => `${NUMBER.format(count)} ${pluralOf(count, noun)}`;
