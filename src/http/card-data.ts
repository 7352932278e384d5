import type { FastifyRequest } from 'fastify';
import { ApiError, type ValidationIssue } from './errors.js';

/** A run of 13 to 19 digits, single spaces or dashes allowed between digits, not inside a longer run. */
const CANDIDATE = /(?<![\d])\d(?:[ -]?\d){12,18}(?![ -]?\d)/g;

/** True when the text holds something that looks like a card number: a Luhn-valid run of 13 to 19 digits. */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(CANDIDATE)) {
    if (luhnValid(match[0].replace(/[ -]/g, ''))) return true;
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
export function cardNumberPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return containsCardNumber(value) ? [path] : [];
  if (typeof value === 'number' || typeof value === 'bigint') {
    return containsCardNumber(String(value)) ? [path] : [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => cardNumberPaths(item, join(path, String(index))));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, member]) => [
      ...(containsCardNumber(name) ? [join(path, '<name>')] : []),
      ...cardNumberPaths(member, join(path, name)),
    ]);
  }
  return [];
}

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}

/**
 * Product decision 16: card data never reaches the API. A body carrying something that looks like a card
 * number, in any member, is refused with 400 `validation_failed` before anything else reads it; the
 * response names where it was, never the value, and nothing of it is stored or logged.
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
    message:
      'looks like a card number; card data must never be sent to the API: the hosted checkout collects it',
  }));
  // The parsed body is dropped so that no later hook or log line can see it.
  request.body = undefined;
  throw ApiError.validation(issues, 'The request carries what looks like a card number.');
}
