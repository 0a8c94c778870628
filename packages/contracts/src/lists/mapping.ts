import { fieldKeyOf, findEmailHeader } from './csv';

/**
 * What each column of a CSV file becomes, guessed from its header: the one rule of the list
 * import and the drip wizard's recipients step. The user may change every guess.
 */
export type TColumnRole = 'email' | 'name' | 'field' | 'skip';

/** A header as compared: lower case, letters and digits only ('First Name', 'first_name' and 'FIRSTNAME' are one). */
const wordOf = (header: string) => header.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** Headers that hold the whole name. */
const FULL_NAME = new Set(['name', 'fullname', 'contactname', 'displayname', 'yourname', 'customername']);
/**
 * Headers that hold part of it, as exports write them: Mailchimp ('First Name', 'Last Name',
 * and its merge tags FNAME/LNAME), HubSpot ('First Name', 'Last Name'), Mautic ('firstname',
 * 'lastname'), Google and Outlook contacts ('Given Name', 'Additional Name', 'Family Name',
 * 'Middle Name'), and the plain words people type (Surname, Forename).
 */
const FIRST_NAME = new Set(['firstname', 'fname', 'givenname', 'forename', 'vorname']);
const MIDDLE_NAME = new Set(['middlename', 'mname', 'additionalname']);
const LAST_NAME = new Set(['lastname', 'lname', 'surname', 'familyname', 'nachname']);

const firstIndex = (words: readonly string[], names: ReadonlySet<string>, taken: ReadonlySet<number>) => {
  const index = words.findIndex((word, position) => names.has(word) && !taken.has(position));
  return index === -1 ? null : index;
};

/**
 * The columns a member's Name is made of, in the order they are joined: a column that holds
 * the whole name when there is one ('Name', 'Full Name'), else first, middle and last names
 * ('First Name' + 'Last Name', 'FNAME' + 'LNAME', 'Given name' + 'Surname'). `skip` holds
 * columns already taken (the email's).
 */
export const nameColumnsOf = (headers: readonly (string | null)[], skip: readonly number[] = []): number[] => {
  const words = headers.map((header) => wordOf(header ?? ''));
  const taken = new Set(skip);
  const full = firstIndex(words, FULL_NAME, taken);
  if (full !== null) return [full];
  return [FIRST_NAME, MIDDLE_NAME, LAST_NAME]
    .map((names) => firstIndex(words, names, taken))
    .filter((index): index is number => index !== null);
};

/**
 * The merge field a name column is also kept as ('First Name' → `first_name`), so
 * `{{first_name}}` reads the file's own first name rather than a guess from the joined Name.
 */
export const namePartKeyOf = (header: string | null | undefined): 'first_name' | 'middle_name' | 'last_name' | null => {
  const word = wordOf(header ?? '');
  if (FIRST_NAME.has(word)) return 'first_name';
  if (MIDDLE_NAME.has(word)) return 'middle_name';
  if (LAST_NAME.has(word)) return 'last_name';
  return null;
};

/** The longest Name a member keeps. */
export const NAME_MAX_LENGTH = 200;

/** A member's Name from a row: the name columns' cells, trimmed, the empty ones left out, joined by a space. */
export const joinName = (cells: readonly string[], nameColumns: readonly number[]) =>
  nameColumns
    .map((column) => (cells[column] ?? '').trim())
    .filter(Boolean)
    .join(' ')
    .slice(0, NAME_MAX_LENGTH);

/**
 * The first guess for every column: the email (the column headed `email`, else the one the
 * caller found holding addresses), the name columns, a custom field for every other headed
 * column, and nothing for a column without a header.
 */
export const guessColumnRoles = (
  headers: readonly (string | null)[],
  addressColumn: number | null,
): { roles: TColumnRole[]; emailColumn: number | null; isEmailLocked: boolean } => {
  const locked = findEmailHeader(headers.map((header) => header ?? ''));
  const emailColumn = locked ?? addressColumn;
  const names = new Set(nameColumnsOf(headers, emailColumn === null ? [] : [emailColumn]));
  const roles = headers.map((header, index): TColumnRole => {
    if (index === emailColumn) return 'email';
    if (names.has(index)) return 'name';
    return header && fieldKeyOf(header) ? 'field' : 'skip';
  });
  return { roles, emailColumn, isEmailLocked: locked !== null };
};
