import type { FastifyRequest } from 'fastify';
import { ApiError, type ValidationIssue } from './errors.js';
import { MAX_JSON_DEPTH } from './input.js';
import { containsCardNumber } from '../shared/card-numbers.js';

/** Whether any member of a JSON value (a name or a value) carries a card number: `cardNumberPaths`' answer
 * without building a path for every member, for the common case of none. */
export function holdsCardNumber(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return containsCardNumber(value);
  if (typeof value === 'number' || typeof value === 'bigint') return containsCardNumber(String(value));
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => holdsCardNumber(item, depth + 1));
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    if (containsCardNumber(name) || holdsCardNumber((value as Record<string, unknown>)[name], depth + 1))
      return true;
  }
  return false;
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
 * the API. A body carrying a card number (issuer range, the brand's length, Luhn; spaced, dashed or
 * dotted, in any digits), in any member, is refused with 400 `validation_failed` before anything else
 * reads it; the response names where it was, never the value, and nothing of it is stored or logged.
 * `exempt` names members whose values are not text anyone reads (a password, a logo's bytes): they are
 * not scanned, so a password that happens to hold a card-shaped run still signs in.
 */
export function cardNumberGuard(
  options: { exempt?: (member: string) => boolean } = {},
): (request: FastifyRequest) => Promise<void> {
  const exempt = options.exempt ?? (() => false);
  return async (request) => {
    // Raw bodies (the signed acquirer notifications) are bytes for a signature check, not API input.
    if (request.body === undefined || request.body === null || Buffer.isBuffer(request.body)) return;
    if (!holdsCardNumber(request.body)) return;
    const paths = cardNumberPaths(request.body).filter(
      (path) => !exempt(path.slice(path.lastIndexOf('.') + 1)),
    );
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
  };
}

/** Every member of an API body is scanned. */
export const refuseCardNumbers = cardNumberGuard();

/** Members of the dashboard's and the console's forms that are secrets or bytes, not text: not scanned. */
export function isUnscannedFormMember(member: string): boolean {
  return /password/i.test(member) || member === 'logo';
}

/** Whether an error is the guard's refusal (the pages show their own sentence for it). */
export function isCardNumberRefusal(error: ApiError): boolean {
  const issues = (error.details as { issues?: ValidationIssue[] } | undefined)?.issues;
  return (
    error.code === 'validation_failed' &&
    Array.isArray(issues) &&
    issues.some((issue) => issue.message === CARD_NUMBER_MESSAGE)
  );
}
