import type { FastifyRequest } from 'fastify';
import { ApiError, type ValidationIssue } from './errors.js';
import { MAX_JSON_DEPTH } from './input.js';

/**
 * The issuer ranges and lengths of the card schemes (ISO/IEC 7812 prefixes as the schemes publish them),
 * longest prefix first within a brand. A digit run is a card number only when it starts in one of these
 * ranges, has one of that brand's lengths and passes Luhn: a millisecond timestamp (13 digits starting
 * with 1) or an order id in no range is not one, however its check digit falls.
 */
interface CardScheme {
  readonly brand: string;
  /** Inclusive ranges of the number's first digits; both ends have the same number of digits. */
  readonly ranges: ReadonlyArray<readonly [string, string]>;
  readonly lengths: readonly number[];
}

const range = (from: string, to = from): readonly [string, string] => [from, to];
const lengths = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const CARD_SCHEMES: readonly CardScheme[] = [
  { brand: 'visa', ranges: [range('4')], lengths: [13, 16, 19] },
  { brand: 'mastercard', ranges: [range('51', '55'), range('2221', '2720')], lengths: [16] },
  { brand: 'amex', ranges: [range('34'), range('37')], lengths: [15] },
  { brand: 'troy', ranges: [range('9792'), range('65')], lengths: [16] },
  {
    brand: 'discover',
    ranges: [range('6011'), range('644', '649'), range('65'), range('622126', '622925')],
    lengths: lengths(16, 19),
  },
  { brand: 'unionpay', ranges: [range('62'), range('81')], lengths: lengths(16, 19) },
  { brand: 'jcb', ranges: [range('3528', '3589')], lengths: lengths(16, 19) },
  {
    brand: 'diners',
    ranges: [range('300', '305'), range('3095'), range('36'), range('38', '39')],
    lengths: lengths(14, 19),
  },
  { brand: 'mir', ranges: [range('2200', '2204')], lengths: lengths(16, 19) },
  {
    brand: 'maestro',
    ranges: [range('50'), range('56', '69')],
    lengths: lengths(13, 19),
  },
  {
    brand: 'rupay',
    ranges: [range('60'), range('81', '82'), range('508'), range('353'), range('356')],
    lengths: [16],
  },
  { brand: 'uatp', ranges: [range('1')], lengths: [15] },
];

/** The brand whose issuer range and length the digits fit, or undefined. Luhn is checked separately. */
export function cardScheme(digits: string): string | undefined {
  for (const scheme of CARD_SCHEMES) {
    if (!scheme.lengths.includes(digits.length)) continue;
    for (const [from, to] of scheme.ranges) {
      const prefix = digits.slice(0, from.length);
      if (prefix >= from && prefix <= to) return scheme.brand;
    }
  }
  return undefined;
}

/** A card number: in a scheme's issuer range, of that scheme's length, Luhn-valid. */
export function isCardNumber(digits: string): boolean {
  return /^\d{13,19}$/.test(digits) && cardScheme(digits) !== undefined && luhnValid(digits);
}

/**
 * Runs of digit groups: digits, with separators between groups. A separator is any run of white space
 * (tabs, line breaks, U+00A0 and the other Unicode spaces, the zero-width ones) or dashes (ASCII, the
 * Unicode dashes and the minus sign), so that a number typed or pasted with odd spacing is still one run.
 * A run starts and ends on a digit and is not part of a longer run of digits.
 */
const DIGIT_RUN = /(?<!\d)\d+(?:[\s\u200b-\u200d\u2060\u2010-\u2015\u2212-]+\d+)*(?!\d)/g;
const GROUP_SEPARATOR = /[\s\u200b-\u200d\u2060\u2010-\u2015\u2212-]+/;

/**
 * A card number is written whole or in the groups cards are printed and typed in (4-4-4-4, 4-6-5,
 * 4-6-4, 4-4-4-4-3): every group but the last of 3 to 6 digits, the last of 1 to 6. So `412-1795397000005`
 * (a prefix and a timestamp) is two ids, not one 16-digit number.
 */
function isCardGroup(group: string, last: boolean): boolean {
  return group.length <= 6 && (last || group.length >= 3);
}

/**
 * True when the text holds a card number: a run of 13 to 19 digits (not inside a longer run of digits),
 * or consecutive card-like groups of a separated run, that is one.
 */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(DIGIT_RUN)) {
    const groups = match[0].split(GROUP_SEPARATOR);
    for (let first = 0; first < groups.length; first++) {
      const whole = groups[first] ?? '';
      if (whole.length >= 13 && isCardNumber(whole)) return true;
      let digits = whole;
      for (let last = first + 1; last < groups.length && digits.length < 19; last++) {
        const group = groups[last] ?? '';
        if (!isCardGroup(groups[last - 1] ?? '', false) || !isCardGroup(group, true)) break;
        digits += group;
        if (digits.length >= 13 && isCardNumber(digits)) return true;
      }
    }
  }
  return false;
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The dotted paths of every member of a JSON value (names and values) that carries a card number. */
export function cardNumberPaths(value: unknown, path = '', depth = 0): string[] {
  if (typeof value === 'string') return containsCardNumber(value) ? [path] : [];
  // A number reaches here as it was written only up to 2^53: the body parser refuses a literal above it
  // (or one that rounded), naming a card number as one (src/http/json-numbers.ts).
  if (typeof value === 'number' || typeof value === 'bigint') {
    return containsCardNumber(String(value)) ? [path] : [];
  }
  // Bodies are depth-checked when parsed (src/http/input.ts); the bound keeps the walk safe regardless.
  if (depth > MAX_JSON_DEPTH) return [];
  if (Array.isArray(value))
    return value.flatMap((item, index) => cardNumberPaths(item, join(path, String(index)), depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, member]) => [
      ...(containsCardNumber(name) ? [join(path, '<name>')] : []),
      ...cardNumberPaths(member, join(path, name), depth + 1),
    ]);
  }
  return [];
}

export const CARD_NUMBER_MESSAGE =
  'looks like a card number; card data must never be sent to the API: the hosted checkout collects it';

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

/**
 * Product decision 16, as refined in docs/decisions/0011-untrusted-input.md: card data never reaches
 * the API. A body carrying a card number (issuer range, the brand's length, Luhn; spaced or dashed), in
 * any member, is refused with 400 `validation_failed` before anything else reads it; the response names
 * where it was, never the value, and nothing of it is stored or logged.
 */
export async function refuseCardNumbers(request: FastifyRequest): Promise<void> {
  // Raw bodies (the signed acquirer notifications) are bytes for a signature check, not API input.
  if (request.body === undefined || request.body === null || Buffer.isBuffer(request.body)) return;
  const paths = cardNumberPaths(request.body);
  if (paths.length === 0) return;
  const issues: ValidationIssue[] = paths.map((path) => ({
    path,
    in: 'body',
    code: 'invalid_value',
    message: CARD_NUMBER_MESSAGE,
  }));
  // The parsed body is dropped so that no later hook or log line can see it.
  request.body = undefined;
  throw ApiError.validation(issues, 'The request carries what looks like a card number.');
}
