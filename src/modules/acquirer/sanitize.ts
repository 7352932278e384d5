const MAX_LENGTH = 200;
const FALLBACK = 'The payment provider refused the request.';

/** Each pattern removes something a merchant must never see in an upstream message (spec section 7). */
const REMOVALS: RegExp[] = [
  // Stack frames: Java's `at com.x.Y.m(Y.java:7)` first, then Node's `at fn (/srv/app/x.js:10:5)`,
  // `at /srv/x.js:1:2` and `at async Promise.all (index 0)`.
  /\bat\s+[\w$.]+\([\w$.]*(?::\d+)?\)/g,
  /\bat\s+(?:async\s+)?(?:[\w$.<>[\]]+\s+)?\((?:[^()]|\([^()]*\))*\)/g,
  /\bat\s+(?:async\s+)?\S+:\d+(?::\d+)?/g,
  // Python and Go frame shapes.
  /\bFile\s+"[^"]*",\s+line\s+\d+(?:,\s+in\s+\S+)?/g,
  /\bgoroutine\s+\d+\s+\[[^\]]*\]:?/g,
  /\bTraceback \(most recent call last\):?/gi,
  // URLs and paths: file:// and node:internal, Windows drives and shares, absolute or home-relative Unix
  // paths of two segments or more, and relative paths that end in a source file with a line number.
  /\b(?:file|node):\/{0,3}\S+/gi,
  /\b[A-Za-z]:\\[^\s"'<>|]*/g,
  /\\\\[\w.$-]+\\[^\s"'<>|]*/g,
  /(?:~|\.{1,2})?(?:\/[\w.@+~-]+){2,}\/?(?::\d+(?::\d+)?)?/g,
  /\b[\w.-]+\.(?:js|mjs|cjs|ts|py|java|go|rb|php|cs)(?::\d+(?::\d+)?)?\b/g,
  // Identifiers: UUIDs, 0x-prefixed and long bare hex runs (16 hex digits or more).
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b0x[0-9a-f]{8,}\b/gi,
  /\b[0-9a-f]{16,}\b/gi,
  // Anything shaped like a card number (13 to 19 digits, spaced or not).
  /\b(?:\d[ -]?){12,18}\d\b/g,
];

/**
 * An upstream (acquirer) message made safe to show a merchant: stack frames, internal paths, long hex
 * ids and card-like numbers removed, control characters dropped, whitespace collapsed, at most 200
 * characters. A message with nothing readable left becomes a generic sentence.
 */
export function sanitizeProviderMessage(raw: unknown): string {
  if (typeof raw !== 'string') return FALLBACK;
  let text = raw.normalize('NFC');
  // Only the first line that is not a frame carries the reason; frames usually follow on their own lines.
  text = text.replace(/[\r\n\t\f\v]+/g, '\n');
  for (const pattern of REMOVALS) text = text.replace(pattern, ' ');
  text = text
    .replace(/\p{Cc}|\p{Cf}/gu, ' ')
    .replace(/\(\s*\)|\[\s*\]|\{\s*\}|"\s*"|'\s*'/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s,.;:-]+|[\s,;:-]+$/g, '');
  if (!/\p{L}{2,}/u.test(text)) return FALLBACK;
  if (text.length > MAX_LENGTH) text = `${text.slice(0, MAX_LENGTH - 1).trimEnd()}…`;
  return text;
}
