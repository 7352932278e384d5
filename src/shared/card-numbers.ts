// The card-number detector: what every layer uses to keep card data out of requests, logs and traces
// (docs/decisions/0011). Pure functions, below every module.
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
 * What separates the digit groups of a card number typed or pasted with odd spacing: any run of white
 * space (tabs, line breaks, U+00A0 and the other Unicode spaces, the zero-width ones, a soft hyphen),
 * dashes (ASCII, every Unicode dash and the minus sign), a plus (a space in a URL's query) and their
 * percent-encodings (`%20`, `%09`, `%2D`, `%C2%A0`) when a URL was pasted into a field.
 */
const SPACE_SEPARATOR = String.raw`(?:[\s\u00ad\u200b-\u200d\u2060\p{Pd}\u2212+]|%20|%09|%2[dD]|%[cC]2%[aA]0)+`;
/** A dot (or `%2E`): a separator only between groups of a card's shape, never mixed with the others. */
const DOT_SEPARATOR = String.raw`(?:\.|%2[eE])`;
const SEPARATOR = `(?:${SPACE_SEPARATOR}|${DOT_SEPARATOR})`;
/** Runs of digit groups: a run starts and ends on a digit and is not part of a longer run of digits. */
const DIGIT_RUN = new RegExp(String.raw`(?<!\d)\d+(?:${SEPARATOR}\d+)*(?!\d)`, 'gu');
const GROUPS = new RegExp(`(${SEPARATOR})`, 'u');
const DOT = new RegExp(`^${DOT_SEPARATOR}$`, 'u');

/**
 * An Ethereum address (40 hex digits) or a transaction hash or digest (64), `0x` or not, with at least
 * one hex letter: its digit runs are no card number (one address in two thousand holds a Luhn-valid run
 * in a card range), so it is set aside before the scan.
 */
const HEX_TOKEN = /(?<![0-9a-z])(?:0x)?(?=[0-9]*[a-f])(?:[0-9a-f]{64}|[0-9a-f]{40})(?![0-9a-z])/giu;

/**
 * The text as the scan reads it: compatibility forms folded (full-width `４２４２` and `．`, mathematical
 * digits), then every other decimal digit (Arabic-Indic `٤٢٤٢`, Devanagari, …) as its ASCII digit, since
 * a reader downstream (a spreadsheet, Python's `int`, a regex with Unicode digits) may take them as one.
 */
export function asciiDigits(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/(?![0-9])\p{Nd}/gu, (digit) => String(decimalValue(digit.codePointAt(0) ?? 0)));
}

/** Anything but printable ASCII and the usual white space: only such text needs its digits folded. */
const NOT_PLAIN_ASCII = /[^\u0020-\u007e\t\n\r]/;

/** Whether the text holds at least 13 ASCII digits: the fewest a card number has. */
function hasCardManyDigits(text: string): boolean {
  let digits = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57 && ++digits >= 13) return true;
  }
  return false;
}

const DECIMAL_DIGIT = /^\p{Nd}$/u;
const digitValues = new Map<number, number>();

/** The value of a decimal digit: Unicode assigns them in runs of ten, 0 to 9, so it counts from its zero. */
function decimalValue(codePoint: number): number {
  const known = digitValues.get(codePoint);
  if (known !== undefined) return known;
  let start = codePoint;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  const value = (codePoint - start) % 10;
  digitValues.set(codePoint, value);
  return value;
}

/**
 * A card number is written whole or in the groups cards are printed and typed in (4-4-4-4, 4-6-5,
 * 4-6-4, 4-4-4-4-3): every group but the last of 3 to 6 digits, the last of 1 to 6. So `412-1795397000005`
 * (a prefix and a timestamp) is two ids, not one 16-digit number. Dotted groups are held to 4 to 6 digits
 * (the last 1 to 6): an IP address, a version or a dotted date has shorter groups, a decimal longer ones.
 */
function isCardGroup(group: string, last: boolean, dotted: boolean): boolean {
  return group.length <= 6 && (last || group.length >= (dotted ? 4 : 3));
}

/**
 * True when the text holds a card number: a run of 13 to 19 digits (not inside a longer run of digits),
 * or consecutive card-like groups of a separated run, all joined by dots or all by the other separators,
 * that is one. Digits of any script count (see `asciiDigits`).
 */
export function containsCardNumber(text: string): boolean {
  // Most members (names, codes, e-mails, amounts) are short ASCII with few digits: they stop here, before
  // any regular expression runs (every API body's every member is scanned).
  const folded = NOT_PLAIN_ASCII.test(text) ? asciiDigits(text) : text;
  if (!hasCardManyDigits(folded)) return false;
  const scanned = folded.length >= 40 ? folded.replace(HEX_TOKEN, 'x') : folded;
  for (const match of scanned.matchAll(DIGIT_RUN)) {
    const parts = match[0].split(GROUPS);
    const groups = parts.filter((_, index) => index % 2 === 0);
    const separators = parts.filter((_, index) => index % 2 === 1);
    for (let first = 0; first < groups.length; first++) {
      const whole = groups[first] ?? '';
      if (whole.length >= 13 && isCardNumber(whole)) return true;
      let digits = whole;
      let dotted: boolean | undefined;
      for (let last = first + 1; last < groups.length && digits.length < 19; last++) {
        const group = groups[last] ?? '';
        const dot = DOT.test(separators[last - 1] ?? '');
        if (dotted !== undefined && dot !== dotted) break;
        dotted = dot;
        if (!isCardGroup(groups[last - 1] ?? '', false, dot) || !isCardGroup(group, true, dot)) break;
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
