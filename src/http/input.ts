import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ValidationIssue } from './errors.js';

/**
 * What no input may carry, wherever it arrives (docs/decisions/0011-untrusted-input.md): JSON nested
 * deeper than MAX_JSON_DEPTH, text with a NUL character or a lone UTF-16 surrogate, a body in a
 * charset other than UTF-8. Each is refused with the envelope before any route, walker or query sees it.
 */

/** Deeper than any body of the API needs, shallow enough that every recursive walker is safe. */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
/** Digits of an integer literal that is always exactly a safe integer (below 2^53, 16 digits). */
const ALWAYS_EXACT_DIGITS = 15;

export interface JsonTextScan {
  /** More than the maximum of arrays and objects open inside each other. */
  tooDeep: boolean;
  /**
   * A number literal with a fraction, an exponent or more than 15 digits: JSON.parse may have rounded
   * it (src/http/json-numbers.ts checks those). Plain integers of up to 15 digits are always exact.
   */
  mayRound: boolean;
}

/** One pass over JSON text, no parse: its nesting depth and whether a number literal may be rounded. */
export function scanJsonText(text: string, maxDepth: number): JsonTextScan {
  let depth = 0;
  let inString = false;
  let digits = 0;
  let mayRound = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
      continue;
    }
    if (char >= DIGIT_0 && char <= DIGIT_9) {
      if (++digits > ALWAYS_EXACT_DIGITS) mayRound = true;
      continue;
    }
    if (digits > 0 && (char === DOT || char === LOWER_E || char === UPPER_E)) mayRound = true;
    digits = 0;
    if (char === QUOTE) inString = true;
    else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > maxDepth) return { tooDeep: true, mayRound };
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--;
  }
  return { tooDeep: false, mayRound };
}

/** True when the JSON text opens more than `max` arrays or objects inside each other (one pass, no parse). */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  return scanJsonText(text, max).tooDeep;
}

export function tooDeepError(): ApiError {
  const message = `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`;
  return ApiError.validation([{ path: '', in: 'body', code: 'invalid_json', message }], message);
}

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const FORBIDDEN_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when the text holds a NUL character or an unpaired UTF-16 surrogate: no database stores either. */
export function hasForbiddenCharacters(text: string): boolean {
  return FORBIDDEN_TEXT.test(text);
}

const FORBIDDEN_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * The dotted path of every member (name or value) of a parsed body, query or form that holds forbidden
 * characters. A bad member name is reported as `<name>` under its parent, never echoed.
 */
export function forbiddenTextIssues(value: unknown, location: ValidationIssue['in']): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (member: unknown, path: string, depth: number): void => {
    if (typeof member === 'string') {
      if (hasForbiddenCharacters(member))
        issues.push({ path, in: location, code: 'invalid_value', message: FORBIDDEN_MESSAGE });
      return;
    }
    // Bodies are depth-checked when parsed; this bound only keeps a walker of other values safe.
    if (member === null || typeof member !== 'object' || depth > MAX_JSON_DEPTH) return;
    if (Array.isArray(member)) {
      member.forEach((item, index) => visit(item, join(path, String(index)), depth + 1));
      return;
    }
    for (const [name, item] of Object.entries(member)) {
      if (hasForbiddenCharacters(name)) {
        issues.push({
          path: join(path, '<name>'),
          in: location,
          code: 'invalid_value',
          message: FORBIDDEN_MESSAGE,
        });
        continue;
      }
      visit(item, join(path, name), depth + 1);
    }
  };
  visit(value, '', 0);
  return issues;
}

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

/**
 * Parses a JSON body the way every listener does: bounded depth first (so no recursive walker can
 * overflow the stack), then JSON.parse, then no member may carry forbidden characters. Used by the
 * receivers that read raw bytes themselves (the signed acquirer notifications).
 */
export function parseJsonText(text: string): unknown {
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeepError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw ApiError.validation([{ path: '', in: 'body', code: 'invalid_json', message: 'is not valid JSON' }]);
  }
  const issues = forbiddenTextIssues(parsed, 'body');
  if (issues.length > 0) throw ApiError.validation(issues);
  return parsed;
}

/**
 * The charset parameter of a Content-Type, lower-cased and unquoted; undefined when there is none.
 * Only UTF-8 bodies are read (RFC 8259 section 8.1 for JSON; forms are sent in the page's UTF-8).
 */
export function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(';').slice(1)) {
    const separator = parameter.indexOf('=');
    if (separator === -1) continue;
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    return parameter
      .slice(separator + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * onRequest, on every listener: a body in a charset other than UTF-8 is 415; a path parameter with a
 * NUL or an unpaired surrogate names nothing that exists, so it is 404 before any route looks it up.
 */
export async function guardRequestLine(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const params = request.params as Record<string, unknown> | undefined;
  if (params !== undefined && params !== null) {
    for (const value of Object.values(params)) {
      if (typeof value === 'string' && hasForbiddenCharacters(value))
        throw new ApiError('not_found', 'No such resource.');
    }
  }
  const contentType = request.headers['content-type'];
  if (typeof contentType === 'string' && hasBody(request)) {
    const charset = charsetOf(contentType);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new ApiError('unsupported_media_type', 'Request bodies must be encoded in UTF-8.');
    }
  }
}

/**
 * preValidation, on every listener and before any other hook reads the input: the query and a parsed
 * body (JSON or form) must not carry forbidden characters in any member name or value. Raw bodies
 * (signed notifications) are checked by their own parser.
 */
export async function refuseForbiddenText(request: FastifyRequest): Promise<void> {
  const issues = forbiddenTextIssues(request.query, 'query');
  if (request.body !== undefined && request.body !== null && !Buffer.isBuffer(request.body)) {
    issues.push(...forbiddenTextIssues(request.body, 'body'));
  }
  if (issues.length === 0) return;
  request.body = undefined;
  throw ApiError.validation(issues, 'The request carries characters that cannot be stored.');
}

/** The pattern of free-text members: no leading or trailing white space, no control characters. */
export const PLAIN_TEXT = '^(?!\\s)[^\\u0000-\\u001f\\u007f]*(?<!\\s)$';

/** A merchant's `metadata` (charges, customers): at most 8 KB of its compact JSON, in UTF-8 bytes. */
export const METADATA_MAX_BYTES = 8192;

/** The schema cannot count serialized bytes: the issue of a `metadata` member over the limit, or none. */
export function metadataIssues(metadata: Record<string, unknown> | undefined): ValidationIssue[] {
  if (metadata === undefined) return [];
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes <= METADATA_MAX_BYTES) return [];
  return [
    {
      path: 'metadata',
      in: 'body',
      code: 'too_large',
      message: `must be at most ${METADATA_MAX_BYTES} bytes serialized (got ${bytes})`,
    },
  ];
}
