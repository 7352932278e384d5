import type { IssueCode, ValidationIssue } from '../../http/errors.js';
import { containsCardNumber } from '../../shared/card-numbers.js';
import { isCountryCode } from './countries.js';
import {
  CARD_SCHEMES,
  CATEGORIES,
  FUNDINGS,
  ISSUER_MAX_LENGTH,
  PROGRAMME_MAX_LENGTH,
  type CardScheme,
  type Category,
  type Funding,
} from './types.js';

/**
 * The BIN file (docs/risk.md, "The BIN table"): UTF-8 CSV (RFC 4180 quoting, one record per line), a
 * header naming the columns in any order, then one row per prefix. Every line is checked and every
 * problem reported with its line; a file with any problem loads nothing.
 */

export const BIN_CSV_COLUMNS = [
  'prefix',
  'scheme',
  'country',
  'issuer',
  'funding',
  'category',
  'programme',
] as const;
type Column = (typeof BIN_CSV_COLUMNS)[number];

/** The largest file one load takes; a bigger one is loaded in parts (each part is an upsert). */
export const BIN_CSV_MAX_BYTES = 8 * 1024 * 1024;
/** The most rows one load takes. */
export const BIN_CSV_MAX_ROWS = 200_000;
/** The most problems one refusal lists. */
export const BIN_CSV_MAX_ISSUES = 100;

/** One row of the file, checked. */
export interface BinCsvRow {
  prefix: string;
  scheme: CardScheme;
  country: string;
  issuer: string | null;
  funding: Funding;
  category: Category;
  programme: string | null;
}

export type ParsedBinCsv =
  { ok: true; rows: BinCsvRow[] } | { ok: false; issues: ValidationIssue[]; problems: number };

const PREFIX = /^[0-9]{6,8}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The problems of one file, each naming its line (`lines.<n>`, the header being line 1) and column. */
class Problems {
  readonly issues: ValidationIssue[] = [];
  count = 0;

  add(line: number, column: Column | undefined, code: IssueCode, message: string): void {
    this.count++;
    if (this.issues.length >= BIN_CSV_MAX_ISSUES) return;
    const path = column === undefined ? `lines.${line}` : `lines.${line}.${column}`;
    this.issues.push({ path, in: 'body', code, message: `line ${line}: ${message}` });
  }
}

/** The fields of one line, RFC 4180 quoting within the line; a string says what is wrong. */
export function csvFields(line: string): string[] | string {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (line[at] === '"') {
      let value = '';
      at++;
      for (;;) {
        const quote = line.indexOf('"', at);
        if (quote === -1) return 'a quoted field is not closed on its line';
        value += line.slice(at, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          at = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      fields.push(value);
      if (at === line.length) return fields;
      if (line[at] !== ',') return 'a quoted field is followed by something other than a comma';
      at++;
      continue;
    }
    const comma = line.indexOf(',', at);
    const value = comma === -1 ? line.slice(at) : line.slice(at, comma);
    if (value.includes('"')) return 'a field holds a quote but is not quoted';
    fields.push(value);
    if (comma === -1) return fields;
    at = comma + 1;
  }
}

/** The header's columns in their order, or undefined after adding its problems. */
function headerOf(line: string | undefined, problems: Problems): Column[] | undefined {
  const fields = line === undefined ? [] : csvFields(line);
  if (typeof fields === 'string') {
    problems.add(1, undefined, 'invalid_format', fields);
    return undefined;
  }
  const columns: Column[] = [];
  for (const field of fields.map((name) => name.trim().toLowerCase())) {
    const column = BIN_CSV_COLUMNS.find((known) => known === field);
    if (column === undefined) problems.add(1, undefined, 'unknown_field', `unknown column "${field}"`);
    else if (columns.includes(column))
      problems.add(1, column, 'invalid_value', `column "${column}" appears twice`);
    else columns.push(column);
  }
  for (const column of BIN_CSV_COLUMNS)
    if (!columns.includes(column))
      problems.add(1, column, 'required', `the header has no "${column}" column`);
  return problems.count === 0 ? columns : undefined;
}

/** One of `allowed`, case aside, or undefined after adding the problem. */
function oneOf<T extends string>(
  value: string,
  allowed: readonly T[],
  where: { line: number; column: Column; problems: Problems },
): T | undefined {
  const found = allowed.find((candidate) => candidate === value.toLowerCase());
  if (found === undefined) {
    const message =
      value === ''
        ? `${where.column} is empty; it is one of ${allowed.join(', ')}`
        : `${where.column} "${value}" is not one of ${allowed.join(', ')}`;
    where.problems.add(where.line, where.column, value === '' ? 'required' : 'invalid_value', message);
  }
  return found;
}

/** Free text (trimmed; empty is null), or undefined after adding its problem. */
function textOf(
  value: string,
  maxLength: number,
  where: { line: number; column: Column; problems: Problems },
): string | null | undefined {
  const { line, column, problems } = where;
  if (value === '') return null;
  if (value.length > maxLength) {
    problems.add(line, column, 'too_long', `${column} is longer than ${maxLength} characters`);
    return undefined;
  }
  if (CONTROL.test(value)) {
    problems.add(line, column, 'invalid_value', `${column} holds a control character`);
    return undefined;
  }
  if (containsCardNumber(value)) {
    problems.add(line, column, 'invalid_value', `${column} looks like a card number`);
    return undefined;
  }
  return value;
}

/** One data line as a row, or undefined after adding its problems. */
function rowOf(fields: string[], columns: Column[], line: number, problems: Problems): BinCsvRow | undefined {
  const before = problems.count;
  const field = (column: Column) => (fields[columns.indexOf(column)] ?? '').trim();
  const at = (column: Column) => ({ line, column, problems });
  const prefix = field('prefix');
  if (!PREFIX.test(prefix))
    problems.add(
      line,
      'prefix',
      prefix === '' ? 'required' : 'invalid_format',
      prefix === '' ? 'prefix is empty' : `prefix "${prefix}" is not 6 to 8 digits`,
    );
  const scheme = oneOf(field('scheme'), CARD_SCHEMES, at('scheme'));
  const country = field('country').toUpperCase();
  if (!isCountryCode(country))
    problems.add(
      line,
      'country',
      country === '' ? 'required' : 'invalid_value',
      country === '' ? 'country is empty' : `country "${field('country')}" is not an ISO 3166-1 alpha-2 code`,
    );
  const issuer = textOf(field('issuer'), ISSUER_MAX_LENGTH, at('issuer'));
  const funding = oneOf(field('funding'), FUNDINGS, at('funding'));
  const category = oneOf(field('category'), CATEGORIES, at('category'));
  const programme = textOf(field('programme'), PROGRAMME_MAX_LENGTH, at('programme'));
  if (
    problems.count > before ||
    scheme === undefined ||
    funding === undefined ||
    category === undefined ||
    issuer === undefined ||
    programme === undefined
  )
    return undefined;
  return { prefix, scheme, country, issuer, funding, category, programme };
}

/**
 * The rows of a BIN file, or every problem of it (the first BIN_CSV_MAX_ISSUES listed, all counted).
 * A leading byte-order mark and empty lines are skipped; lines end in LF or CRLF.
 */
export function parseBinCsv(text: string): ParsedBinCsv {
  const problems = new Problems();
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/);
  const columns = headerOf(lines[0], problems);
  if (columns === undefined) return { ok: false, issues: problems.issues, problems: problems.count };
  const rows: BinCsvRow[] = [];
  const lineOf = new Map<string, number>();
  let dataLines = 0;
  for (let index = 1; index < lines.length; index++) {
    const content = lines[index] ?? '';
    const line = index + 1;
    if (content.trim() === '') continue;
    if (++dataLines > BIN_CSV_MAX_ROWS) {
      problems.add(line, undefined, 'too_large', `the file has more than ${BIN_CSV_MAX_ROWS} rows`);
      break;
    }
    const fields = csvFields(content);
    if (typeof fields === 'string') {
      problems.add(line, undefined, 'invalid_format', fields);
      continue;
    }
    if (fields.length !== columns.length) {
      problems.add(
        line,
        undefined,
        'invalid_format',
        `${fields.length} fields where the header has ${columns.length}`,
      );
      continue;
    }
    const row = rowOf(fields, columns, line, problems);
    if (row === undefined) continue;
    const first = lineOf.get(row.prefix);
    if (first !== undefined) {
      problems.add(line, 'prefix', 'invalid_value', `prefix ${row.prefix} is also on line ${first}`);
      continue;
    }
    lineOf.set(row.prefix, line);
    rows.push(row);
  }
  if (problems.count === 0 && rows.length === 0)
    problems.add(2, undefined, 'required', 'the file has no rows');
  return problems.count === 0
    ? { ok: true, rows }
    : { ok: false, issues: problems.issues, problems: problems.count };
}
