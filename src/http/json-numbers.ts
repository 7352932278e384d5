import { CARD_NUMBER_MESSAGE } from './card-data.js';
import { containsCardNumber } from '../shared/card-numbers.js';
import { ApiError, type IssueCode, type ValidationIssue } from './errors.js';
import { hasForbiddenCharacters } from './input.js';

/**
 * Number literals that JSON.parse does not read as written
 * (docs/decisions/0052-charge-key-reuse-and-exact-json-numbers.md). Validation and the card-number scan
 * see the double JSON.parse made of a literal, so `0.99999999999999999` would pass as the integer 1 and
 * a 16-digit card number above 2^53 as another number. A literal is refused when its double is an integer
 * but the literal is not exactly that integer (a fraction or an exponent that rounded), when the double
 * is an integer beyond the safe-integer range, or when it is not finite. A literal whose double is not
 * an integer (`0.1`, `19.99`) keeps the usual meaning of JSON numbers: no integer field takes it, and
 * metadata holds the nearest double as always. `12.0`, `1e2` and `-0` are exactly integers and pass.
 */

const NUMBER_LITERAL = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** More digits than any safe integer has. */
const MAX_SAFE_DIGITS = 16;

/**
 * The integer a JSON number literal denotes exactly, in decimal digits without the sign; undefined when it
 * denotes no integer (a fraction remains) or one longer than any safe integer.
 */
export function writtenInteger(literal: string): string | undefined {
  const match = NUMBER_LITERAL.exec(literal);
  if (!match) return undefined;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const significant = `${whole}${fraction}`.replace(/^0+/, '');
  if (significant === '') return '0';
  const digits = significant.replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (significant.length - digits.length);
  if (scale < 0 || digits.length + scale > MAX_SAFE_DIGITS) return undefined;
  return `${digits}${'0'.repeat(scale)}`;
}

/** Why a literal and the double JSON.parse made of it disagree, or undefined when they do not. */
function numberProblem(value: number, literal: string): IssueCode | undefined {
  if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
    return 'too_large';
  if (!Number.isInteger(value)) return undefined;
  return writtenInteger(literal) === String(Math.abs(value)) ? undefined : 'invalid_type';
}

const MESSAGES: Partial<Record<IssueCode, string>> = {
  too_large: 'is a number beyond the safe-integer range (2^53 - 1) or not finite; it cannot be read exactly',
  invalid_type: 'is not an integer as written: its fraction or exponent would be rounded away',
};

interface Reviver {
  (this: object, key: string, value: unknown, context?: { source?: string }): unknown;
}

/**
 * The issues of the number literals of `text` (valid JSON) that JSON.parse does not read as written, each
 * naming its member; a literal holding a card number is reported as one, never echoed. Uses the source
 * text JSON.parse hands a reviver (Node 22+); a reviver is slow, so the body parser calls this only when
 * a cheap scan found a literal that may round (src/http/input.ts `scanJsonText`).
 */
export function roundedNumberIssues(text: string): ValidationIssue[] {
  // The reviver runs on members before the object holding them: each holder collects the paths below it
  // until its own key is known.
  const below = new Map<object, ValidationIssue[]>();
  const reviver: Reviver = function (key, value, context) {
    let issues: ValidationIssue[] | undefined;
    if (typeof value === 'number') {
      const literal = context?.source ?? String(value);
      const code = numberProblem(value, literal);
      if (code !== undefined) {
        issues = containsCardNumber(literal)
          ? [{ path: '', in: 'body', code: 'invalid_value', message: CARD_NUMBER_MESSAGE }]
          : [{ path: '', in: 'body', code, message: MESSAGES[code] ?? 'cannot be read exactly' }];
      }
    } else if (value !== null && typeof value === 'object') {
      issues = below.get(value);
      below.delete(value);
    }
    if (issues !== undefined) {
      const name = containsCardNumber(key) || hasForbiddenCharacters(key) ? '<name>' : key;
      const mine = below.get(this) ?? [];
      for (const issue of issues) mine.push({ ...issue, path: join(name, issue.path) });
      below.set(this, mine);
    }
    return value;
  };
  JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
  // Only the root's holder is left: every other holder was handed up to its parent.
  return [...below.values()].flat();
}

/** The 400 for a body with such literals, or undefined when every literal reads as written. */
export function roundedNumberError(text: string): ApiError | undefined {
  const issues = roundedNumberIssues(text);
  if (issues.length === 0) return undefined;
  const card = issues.some((issue) => issue.message === CARD_NUMBER_MESSAGE);
  return ApiError.validation(
    issues,
    card
      ? 'The request carries what looks like a card number.'
      : 'The request carries numbers that cannot be read exactly as written.',
  );
}

function join(name: string, path: string): string {
  if (name === '') return path;
  return path === '' ? name : `${name}.${path}`;
}
