import {
  CSV_PREVIEW_ROWS,
  cleanEmail,
  decodeSample,
  detectDelimiter,
  fieldKeyOf,
  findEmailHeader,
  firstRowProblem,
  guessColumnRoles,
  isGenericEmail,
  isValidEmail,
  joinName,
  LIST_MESSAGES,
  looksLikeAddress,
  readEmailCell,
  type TColumnRole,
  type TCsvDelimiter,
  type TCsvEncoding,
  type TImportMapping,
} from '@sendwell/contracts';
import Papa from 'papaparse';

/**
 * How much of a file the browser reads for the preview. The server reads the whole file;
 * the browser never holds a large one in memory.
 */
export const CSV_SAMPLE_BYTES = 256 * 1024;

/** Rows looked at to count a file's columns and to guess its email column. */
const SHAPE_ROWS = 50;

export type TCsvSample = {
  encoding: TCsvEncoding;
  delimiter: TCsvDelimiter;
  /** Every complete row of the sample, a header row included; blank rows left out. */
  rows: string[][];
  /** The sample is the whole file, so what it says about every address holds for the file. */
  isWholeFile: boolean;
};

/** Parses a file's first bytes the way the server will read the whole file: same encoding and delimiter rules. */
export const parseCsvSample = (bytes: Uint8Array, isWholeFile: boolean): TCsvSample => {
  const { encoding, text: decoded } = decodeSample(bytes);
  // A cut sample ends inside a row, which would preview wrong: it is left out.
  const text = isWholeFile ? decoded : decoded.slice(0, Math.max(decoded.lastIndexOf('\n'), 0));
  const delimiter = detectDelimiter(text);
  const { data } = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: 'greedy' });
  return { encoding, delimiter, rows: data, isWholeFile };
};

export const readCsvSample = async (file: Blob): Promise<TCsvSample> => {
  const bytes = new Uint8Array(await file.slice(0, CSV_SAMPLE_BYTES).arrayBuffer());
  return parseCsvSample(bytes, file.size <= CSV_SAMPLE_BYTES);
};

/**
 * The modal's first guess: a header row when a cell says `email`, or when nothing on the first
 * row is an address (a row of titles) and its cell in the column where the other rows keep
 * their addresses is a word, not a mistyped address: `john.smith.example.com` starts a
 * headerless file with a typo, which the first-row rule then names (spec §5), instead of being
 * dropped as a header with its other cells offered as custom fields.
 */
export const hasHeaderRow = (rows: readonly string[][]): boolean => {
  const first = rows[0];
  if (!first) return false;
  if (findEmailHeader(first) !== null) return true;
  if (first.some((cell) => readEmailCell(cell).email !== null)) return false;
  const emailColumn = guessEmailColumn(rows.slice(1));
  return emailColumn === null || !looksLikeAddress(first[emailColumn] ?? '');
};

export const dataRowsOf = (sample: TCsvSample, hasHeaders: boolean) =>
  hasHeaders ? sample.rows.slice(1) : sample.rows;

export type TCsvColumn = {
  /** 0-based position, as the mapping sends it. */
  index: number;
  /** The header cell, trimmed; null without a header row or when the cell is empty. */
  header: string | null;
  /** What the modal calls the column: its header, else `Column N`. */
  label: string;
};

export const columnsOf = (sample: TCsvSample, hasHeaders: boolean): TCsvColumn[] => {
  const width = Math.max(0, ...sample.rows.slice(0, SHAPE_ROWS).map((row) => row.length));
  const headerRow = hasHeaders ? (sample.rows[0] ?? []) : [];
  return Array.from({ length: width }, (_, index) => {
    const header = headerRow[index]?.trim() || null;
    return { index, header, label: header ?? `Column ${index + 1}` };
  });
};

export type { TColumnRole };
export const COLUMN_ROLES: { value: TColumnRole; label: string }[] = [
  { value: 'email', label: 'Email' },
  { value: 'name', label: 'Name' },
  { value: 'field', label: 'Custom field' },
  { value: 'skip', label: 'Skip' },
];

/** What one column becomes; `key` is the custom field's name, kept while another role is tried. */
export type TColumnChoice = { role: TColumnRole; key: string };

export type TMappingDefaults = {
  choices: TColumnChoice[];
  /** A header says `email`: that column is the email and the choice is not offered (spec §5). */
  isEmailLocked: boolean;
};

/** The column holding the most addresses among the first data rows, for files without an `email` header. */
const guessEmailColumn = (rows: readonly string[][]): number | null => {
  const counts = new Map<number, number>();
  for (const row of rows.slice(0, SHAPE_ROWS)) {
    row.forEach((cell, index) => {
      if (readEmailCell(cell).email !== null) counts.set(index, (counts.get(index) ?? 0) + 1);
    });
  }
  let best: number | null = null;
  for (const [index, count] of counts) {
    if (best === null || count > (counts.get(best) ?? 0)) best = index;
  }
  return best;
};

/**
 * The mapping the modal starts from: contracts' `guessColumnRoles`, the rule the drip wizard
 * shares (the email headed `email` or where the addresses are; 'First Name' + 'Last Name',
 * FNAME + LNAME and their kin joined as the Name; other headed columns as custom fields).
 */
export const defaultChoices = (sample: TCsvSample, hasHeaders: boolean): TMappingDefaults => {
  const columns = columnsOf(sample, hasHeaders);
  const { roles, isEmailLocked } = guessColumnRoles(
    columns.map((column) => column.header),
    guessEmailColumn(dataRowsOf(sample, hasHeaders)),
  );
  const choices = columns.map((column): TColumnChoice => {
    const role = roles[column.index] ?? 'skip';
    return { role, key: role === 'field' && column.header ? fieldKeyOf(column.header) : '' };
  });
  return { choices, isEmailLocked };
};

/**
 * One column takes the email: choosing it for a column frees the one that had it. The Name
 * may be made of several columns (first and last names), joined in column order.
 */
export const chooseRole = (
  choices: readonly TColumnChoice[],
  index: number,
  role: TColumnRole,
  columns: readonly TCsvColumn[],
): TColumnChoice[] =>
  choices.map((choice, position) => {
    if (position === index) {
      const header = columns[position]?.header;
      const key = choice.key || (header ? fieldKeyOf(header) : '') || `column_${position + 1}`;
      return { role, key: role === 'field' ? key : choice.key };
    }
    if (role === 'email' && choice.role === role) return { ...choice, role: 'skip' };
    return choice;
  });

/** The columns the Name is joined from, in column order. */
export const nameColumnsOfChoices = (choices: readonly TColumnChoice[]) =>
  choices.flatMap((choice, index) => (choice.role === 'name' ? [index] : []));

const columnOf = (choices: readonly TColumnChoice[], role: TColumnRole) => {
  const index = choices.findIndex((choice) => choice.role === role);
  return index === -1 ? null : index;
};

export const emailColumnOf = (choices: readonly TColumnChoice[]) => columnOf(choices, 'email');

/**
 * Why the import cannot start yet, in the spec's words (§5), or null. The first data row is
 * checked on its own (`firstRowProblem`, the rule the server applies to the whole upload):
 * an invalid address there almost always means a header row read as data, or a first
 * member's typo taken for a header.
 */
export const importProblem = (
  sample: TCsvSample | null,
  hasHeaders: boolean,
  choices: readonly TColumnChoice[],
): string | null => {
  if (!sample) return LIST_MESSAGES.uploadFirst;
  if (dataRowsOf(sample, hasHeaders).length === 0) return LIST_MESSAGES.uploadFirst;
  const emailColumn = emailColumnOf(choices);
  if (emailColumn === null) return LIST_MESSAGES.selectEmail;
  return firstRowProblem(sample.rows, { hasHeaders, emailColumn });
};

/** What the server is told about the file; `ZImportMapping` has the last word on it. */
export const toImportMapping = (
  choices: readonly TColumnChoice[],
  options: { hasHeaders: boolean; removeGeneric: boolean; verify?: boolean },
): TImportMapping => ({
  hasHeaders: options.hasHeaders,
  emailColumn: emailColumnOf(choices) ?? -1,
  nameColumn: columnOf(choices, 'name'),
  nameColumns: nameColumnsOfChoices(choices),
  fields: choices.flatMap((choice, column) => (choice.role === 'field' ? [{ column, key: choice.key.trim() }] : [])),
  removeGeneric: options.removeGeneric,
  verify: options.verify ?? false,
});

export type TPreviewRow = { email: string; name: string };

/** The first data rows as the list will receive them (spec: 2 to 3 rows). */
export const previewRows = (
  sample: TCsvSample,
  hasHeaders: boolean,
  choices: readonly TColumnChoice[],
): TPreviewRow[] => {
  const emailColumn = emailColumnOf(choices);
  const nameColumns = nameColumnsOfChoices(choices);
  return dataRowsOf(sample, hasHeaders)
    .slice(0, CSV_PREVIEW_ROWS)
    .map((row) => ({
      email: emailColumn === null ? '' : cleanEmail(row[emailColumn] ?? ''),
      name: joinName(row, nameColumns),
    }));
};

export type TGenericSummary = {
  /** Generic addresses among the sample's rows, in file order. */
  generic: string[];
  /** The sample is the whole file and it holds no address that is not generic. */
  isAllGeneric: boolean;
};

/** Generic addresses in the sample (all rows read, not only the previewed ones). */
export const genericSummary = (
  sample: TCsvSample,
  hasHeaders: boolean,
  choices: readonly TColumnChoice[],
  genericNames: ReadonlySet<string>,
): TGenericSummary => {
  const emailColumn = emailColumnOf(choices);
  if (emailColumn === null) return { generic: [], isAllGeneric: false };
  const emails = dataRowsOf(sample, hasHeaders)
    .map((row) => cleanEmail(row[emailColumn] ?? ''))
    .filter(isValidEmail);
  const generic = emails.filter((email) => isGenericEmail(email, genericNames));
  return { generic, isAllGeneric: sample.isWholeFile && emails.length > 0 && generic.length === emails.length };
};
