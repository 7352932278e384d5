import { cardBrand, luhnValid, type ThreeDSecure } from './cards.js';
import { invalidRequest } from './errors.js';
import type { CardSummary, PaymentMethod } from './model.js';

/**
 * Request validation. Messages say what is expected and never repeat the value that was sent (it may be
 * a card number or a CVC).
 */

type Fields = Record<string, unknown>;

/**
 * The body of a request whose JSON does not parse. The parser hands this on instead of failing, so that
 * the request goes through fault rules and the call log like any other refused call; reading it as a
 * body answers 400.
 */
export class UnparsableJson {
  readonly reason = 'The body is not valid JSON.';
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const AMOUNT_DIGITS = /^[1-9][0-9]{0,15}$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;
const MAX_URL_LENGTH = 2048;

/** The JSON object body of a request, refusing members that are not in `allowed`. */
export function readBody(
  body: unknown,
  allowed: readonly string[],
  options: { optional?: boolean } = {},
): Fields {
  if (body === undefined && options.optional) return {};
  if (body instanceof UnparsableJson) throw invalidRequest(body.reason);
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof URLSearchParams) {
    throw invalidRequest('The body must be a JSON object (Content-Type: application/json).');
  }
  const fields = body as Fields;
  for (const name of Object.keys(fields)) {
    if (!allowed.includes(name)) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      const expected = allowed.length > 0 ? `the fields are ${allowed.join(', ')}` : 'the body must be {}';
      throw invalidRequest(`Unknown field "${shown}": ${expected}.`);
    }
  }
  return fields;
}

/** A positive amount of minor units as a decimal string: "1" to "9007199254740991". */
export function parseAmount(value: unknown, field: string): string {
  if (typeof value !== 'string') {
    const hint = typeof value === 'number' ? ' (a JSON string, not a number)' : '';
    throw invalidRequest(`${field} must be a string of decimal digits of minor units${hint}, e.g. "12550".`);
  }
  if (!AMOUNT_DIGITS.test(value) || Number(value) > MAX_SAFE) {
    throw invalidRequest(
      `${field} must be a positive whole number of minor units written with decimal digits only (no sign, point or leading zero), from 1 to ${MAX_SAFE}.`,
    );
  }
  return value;
}

function requiredString(fields: Fields, name: string, max: number): string {
  const value = fields[name];
  if (value === undefined || value === null) throw invalidRequest(`${name} is required.`);
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a string.`);
  const length = [...value].length;
  if (length < 1 || length > max) throw invalidRequest(`${name} must be 1 to ${max} characters long.`);
  return value;
}

function optionalString(fields: Fields, name: string, max: number): string | null {
  if (fields[name] === undefined || fields[name] === null) return null;
  return requiredString(fields, name, max);
}

function integerField(fields: Fields, name: string, min: number, max: number): number {
  const value = fields[name];
  if (value === undefined || value === null) throw invalidRequest(`${name} is required.`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidRequest(`${name} must be a whole number (JSON number) from ${min} to ${max}.`);
  }
  return value;
}

/** An absolute http or https URL. */
export function parseHttpUrl(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${name} must be an http or https URL string.`);
  if (value.length > MAX_URL_LENGTH)
    throw invalidRequest(`${name} must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest(`${name} must be an absolute http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidRequest(`${name} must be an http or https URL.`);
  }
  return value;
}

/** The `Idempotency-Key` header: required, 1 to 255 printable ASCII characters. */
export function parseIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined) throw invalidRequest('The Idempotency-Key header is required.');
  if (Array.isArray(header)) throw invalidRequest('Send one Idempotency-Key header.');
  if (!PRINTABLE_ASCII.test(header)) {
    throw invalidRequest('The Idempotency-Key header must be 1 to 255 printable ASCII characters.');
  }
  return header;
}

export interface CreatePaymentInput {
  amount: string;
  currency: 'TRY';
  method: PaymentMethod;
  reference: string;
  description: string | null;
  notificationUrl: string | null;
  maxAttempts: number;
}

const CREATE_FIELDS = [
  'amount',
  'currency',
  'method',
  'reference',
  'description',
  'notificationUrl',
  'maxAttempts',
] as const;

/** The body of `POST /v1/payments`. */
export function parseCreatePayment(body: unknown): CreatePaymentInput {
  const fields = readBody(body, CREATE_FIELDS);
  const amount = parseAmount(fields.amount, 'amount');
  if (fields.currency !== 'TRY') throw invalidRequest('currency must be "TRY".');
  if (fields.method !== 'card' && fields.method !== 'bank_transfer') {
    throw invalidRequest('method must be "card" or "bank_transfer".');
  }
  const reference = requiredString(fields, 'reference', 255);
  const description = optionalString(fields, 'description', 255);
  const notificationUrl =
    fields.notificationUrl === undefined || fields.notificationUrl === null
      ? null
      : parseHttpUrl(fields.notificationUrl, 'notificationUrl');
  const maxAttempts = fields.maxAttempts === undefined ? 3 : integerField(fields, 'maxAttempts', 1, 10);
  return {
    amount,
    currency: 'TRY',
    method: fields.method,
    reference,
    description,
    notificationUrl,
    maxAttempts,
  };
}

/** A card attempt, once validated: the number stays in memory for the outcome and is then dropped. */
export interface CardAttemptInput {
  /** Only for choosing the outcome; never stored, logged or answered. */
  number: string;
  card: CardSummary;
  returnUrl: string;
  /** `required`: a card that would succeed opens the 3-D Secure challenge instead. */
  threeDSecure: ThreeDSecure;
}

const AUTHORIZE_FIELDS = [
  'number',
  'expMonth',
  'expYear',
  'cvc',
  'holderName',
  'returnUrl',
  'threeDSecure',
] as const;

/** The body of `POST /v1/payments/{id}/authorize`; `now` decides whether the expiry is past. */
export function parseAuthorize(body: unknown, now: Date): CardAttemptInput {
  const fields = readBody(body, AUTHORIZE_FIELDS);
  const number = fields.number;
  if (typeof number !== 'string' || !/^[0-9]{12,19}$/.test(number)) {
    throw invalidRequest('number must be the card number as a string of 12 to 19 digits, without spaces.');
  }
  if (!luhnValid(number)) throw invalidRequest('number is not a valid card number (the Luhn check fails).');
  const expMonth = integerField(fields, 'expMonth', 1, 12);
  const expYear = integerField(fields, 'expYear', 2000, 2099);
  if (expYear * 12 + expMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) {
    throw invalidRequest('The card has expired: expMonth/expYear is in the past.');
  }
  if (typeof fields.cvc !== 'string' || !/^[0-9]{3,4}$/.test(fields.cvc)) {
    throw invalidRequest('cvc must be a string of 3 or 4 digits.');
  }
  optionalString(fields, 'holderName', 255);
  if (fields.returnUrl === undefined || fields.returnUrl === null)
    throw invalidRequest('returnUrl is required.');
  const returnUrl = parseHttpUrl(fields.returnUrl, 'returnUrl');
  const card: CardSummary = { brand: cardBrand(number), last4: number.slice(-4), expMonth, expYear };
  return { number, card, returnUrl, threeDSecure: parseThreeDSecure(fields.threeDSecure) };
}

/** `threeDSecure`: absent, `null` or `automatic` (the test card decides), or `required`. */
function parseThreeDSecure(value: unknown): ThreeDSecure {
  if (value === undefined || value === null || value === 'automatic') return 'automatic';
  if (value === 'required') return 'required';
  throw invalidRequest('threeDSecure must be "automatic" or "required".');
}

/** The body of `POST /v1/payments/{id}/challenge`. */
export function parseChallengeCode(body: unknown): string {
  const fields = readBody(body, ['code']);
  if (typeof fields.code !== 'string' || fields.code.length > 32) {
    throw invalidRequest('code must be a string of at most 32 characters (the sandbox code is "123456").');
  }
  return fields.code;
}

/** The form posted by the challenge page (application/x-www-form-urlencoded). */
export function parseChallengeForm(body: unknown): string {
  if (!(body instanceof URLSearchParams)) {
    throw invalidRequest('Post the challenge form as application/x-www-form-urlencoded.');
  }
  const code = body.get('code');
  if (code === null) throw invalidRequest('The form has no code field.');
  return code.trim().slice(0, 32);
}

/** The body of `POST /v1/payments/{id}/simulate-transfer`: `{}` (or none) or `{ "amount": "…" }`. */
export function parseSimulateTransfer(body: unknown): { amount: string | null } {
  const fields = readBody(body, ['amount'], { optional: true });
  return { amount: fields.amount === undefined ? null : parseAmount(fields.amount, 'amount') };
}

/** The body of `POST /v1/payments/{id}/cancel`: `{}` or none. */
export function parseCancel(body: unknown): void {
  readBody(body, [], { optional: true });
}

/** The body of `POST /v1/payments/{id}/refunds`. */
export function parseRefund(body: unknown): { amount: string } {
  const fields = readBody(body, ['amount']);
  if (fields.amount === undefined) throw invalidRequest('amount is required.');
  return { amount: parseAmount(fields.amount, 'amount') };
}

/** The query of `GET /v1/payments`: exactly `reference`. */
export function parseFindQuery(query: unknown): string {
  const fields = (query ?? {}) as Fields;
  for (const name of Object.keys(fields)) {
    if (name !== 'reference') throw invalidRequest('The only query parameter is reference.');
  }
  const reference = fields.reference;
  if (typeof reference !== 'string' || reference.length === 0 || [...reference].length > 255) {
    throw invalidRequest(
      'Give one reference query parameter of 1 to 255 characters: ?reference=<reference>.',
    );
  }
  return reference;
}

/** A report's date: a real calendar date, YYYY-MM-DD. */
export function parseReportDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = match ? new Date(`${value}T00:00:00.000Z`) : null;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw invalidRequest('The date is a calendar date, YYYY-MM-DD.');
  }
  return value;
}
