import { luhnValid } from '../../shared/card-numbers.js';

const MAX_LENGTH = 200;
/** Longer upstream messages are cut before any pattern runs, so no pattern can take long. */
const MAX_INPUT = 2000;
const FALLBACK = 'The payment provider refused the request.';

const SOURCE_FILE = String.raw`[\w@+-]+(?:\.[\w@+-]+)*\.(?:js|mjs|cjs|jsx|ts|mts|cts|tsx|py|java|kt|go|rb|php|cs|rs|ex|exs)`;
/** A path starts a token: not in the middle of a word, a URL or another path. */
const TOKEN_START = String.raw`(?<![\w.~/\\:@+-])`;

/**
 * What a merchant must never see of an upstream message (spec section 7): stack frames, internal paths
 * and URLs. Each pattern names a shape that ordinary prose does not have, so that words stay intact: "at
 * checkout (limit)" is a sentence, `at check (/srv/x.js:1:2)` a frame; "issuer/acquirer" is a word,
 * `/srv/psp/app` or `src/app.ts` a path; "12:30" is a time, `/srv/x.js:12:30` a location.
 */
const REMOVALS: RegExp[] = [
  // Node frames: `at fn (<location>)` where the location ends in `:line:column` or is `native`,
  // `<anonymous>` or `index N` (Promise.all), and `at <path or specifier>:line:column`.
  /\bat\s+(?:async\s+)?(?:new\s+)?[^\s()]+(?:\s+\[as\s+[^\]\s]+\])?\s+\((?:[^()]|\([^()]*\))*?(?::\d+:\d+|\bnative|<anonymous>|\bindex\s+\d+)\)/g,
  /\bat\s+(?:async\s+)?(?:(?:(?:file|node):[^\s()]+|[^\s()]*[/\\][^\s()]*):\d+:\d+|<anonymous>)/g,
  // Java and C# frames: a qualified method name and its location or arguments, `... 12 more`.
  /\bat\s+[\w$<>`]+(?:\.[\w$<>`]+)+\((?:[^()]*)\)(?:\s+in\s+\S+?:line\s+\d+)?/g,
  /\.\.\.\s*\d+\s+more\b/g,
  // Python and Go frame shapes: `File "x.py", line 8, in f`, `goroutine 7 [running]:`, `f(0xc0, ...)`,
  // `+0x1d`.
  /\bTraceback \(most recent call last\):?/gi,
  /\bFile\s+"[^"]*",\s+line\s+\d+(?:,\s+in\s+\S+)?/g,
  /\bgoroutine\s+\d+\s+\[[^\]]*\]:?/g,
  /[\w./*()-]*\((?:0x[0-9a-f]+|\.\.\.)(?:,\s*(?:0x[0-9a-f]+|\.\.\.))*\)/gi,
  /\s\+0x[0-9a-f]+\b/gi,
  // URLs of any scheme, and file: and node: specifiers.
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi,
  /\b(?:file|node):[^\s"'<>]+/gi,
  // Windows drive paths and shares.
  /\b[A-Za-z]:\\[^\s"'<>|]*/g,
  /\\\\[\w.$-]+\\[^\s"'<>|]*/g,
  // Unix paths: absolute, home or dot-relative of two segments or more; relative ones that end in a
  // source file or carry a line number; a bare source file with a line number.
  new RegExp(String.raw`${TOKEN_START}(?:~|\.{1,2})?(?:\/[\w.@+~%-]+){2,}\/?(?::\d+){0,2}`, 'g'),
  new RegExp(String.raw`${TOKEN_START}(?:[\w.@+-]+\/)+${SOURCE_FILE}\b(?::\d+){0,2}`, 'g'),
  new RegExp(String.raw`${TOKEN_START}(?:[\w.@+-]+\/)+[\w.@+-]+(?::\d+){1,2}\b`, 'g'),
  new RegExp(String.raw`${TOKEN_START}${SOURCE_FILE}(?::\d+){1,2}\b`, 'g'),
];

/** An identifier: a token holding a UUID, 0x and 8 hex digits or more, or 16 hex digits in a row. */
const IDENTIFIER =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|0x[0-9a-f]{8,}|[0-9a-f]{16,}/i;

/** A run of 13 to 19 digits, single spaces or dashes allowed between digits, not inside a longer run. */
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){12,18}(?![ -]?\d)/g;

/**
 * A run of digits that may be a card number: unbroken, Luhn-valid, or grouped the way cards are printed
 * (groups of four, or Amex's 4-6-5). "100 200 300 400 500" is a list of numbers, not a card.
 */
function looksLikeCard(run: string): boolean {
  const groups = run.split(/[ -]/);
  if (groups.length === 1) return true;
  if (luhnValid(groups.join(''))) return true;
  const lengths = groups.map((group) => group.length).join('-');
  return /^(?:4-)+\d$/.test(lengths) || lengths === '4-6-5' || lengths === '4-6-4';
}

/**
 * An upstream (acquirer) message made safe to show a merchant: stack frames, internal paths and URLs,
 * identifiers (tokens with long hex runs or UUIDs) and card-like numbers are removed whole; ordinary
 * words are never cut. Control characters are dropped, whitespace collapsed, and the result is at most
 * 200 characters, cut between words. A message with nothing readable left becomes a generic sentence.
 */
export function sanitizeProviderMessage(raw: unknown): string {
  if (typeof raw !== 'string') return FALLBACK;
  let text = raw.slice(0, MAX_INPUT).normalize('NFC');
  text = text.replace(/[\r\n\t\f\v]+/g, '\n');
  // A removed path or URL that ended a sentence leaves the sentence's full stop.
  for (const pattern of REMOVALS) text = text.replace(pattern, (match) => (match.endsWith('.') ? ' .' : ' '));
  text = text
    .replace(/[\w-]+/g, (token) => (IDENTIFIER.test(token) ? ' ' : token))
    .replace(DIGIT_RUN, (run) => (looksLikeCard(run) ? ' ' : run));
  text = text
    .replace(/\p{Cc}|\p{Cf}/gu, ' ')
    .replace(/\(\s*\)|\[\s*\]|\{\s*\}|"\s*"|'\s*'/g, ' ')
    // `trace=<removed>` leaves no dangling `=`.
    .replace(/\s*=(?=\s|[,;.)]|$)/g, ' ')
    .replace(/\s+([,.;:!?)])/g, '$1')
    .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s,.;:-]+|[\s,;:-]+$/g, '');
  if (!/\p{L}{2,}/u.test(text)) return FALLBACK;
  return truncate(text);
}

/** At most MAX_LENGTH UTF-16 units, ending with `…` between two words (inside one overlong word otherwise). */
function truncate(text: string): string {
  if (text.length <= MAX_LENGTH) return text;
  let cut = text.slice(0, MAX_LENGTH - 1);
  // Never half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const lastSpace = cut.lastIndexOf(' ');
  if (lastSpace >= MAX_LENGTH / 2) cut = cut.slice(0, lastSpace);
  return `${cut.replace(/[\s,;:-]+$/, '')}…`;
}
