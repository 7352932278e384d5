import { DISPUTE_KINDS, DISPUTE_REASONS } from './dispute-reasons.js';
import type { RaiseInput } from './disputes.js';
import { invalidRequest } from './errors.js';
import { parseAmount, readBody } from './validation.js';

/** The most evidence text one submission takes (the body limit is 64 KiB). */
export const MAX_EVIDENCE_LENGTH = 20_000;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The body of `POST /v1/disputes/{id}/evidence`: `{ "text": "…" }`. */
export function parseEvidence(body: unknown): string {
  const fields = readBody(body, ['text']);
  const text = fields.text;
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_EVIDENCE_LENGTH) {
    throw invalidRequest(`text is required: the evidence, 1 to ${MAX_EVIDENCE_LENGTH} characters.`);
  }
  return text;
}

/** The body of `POST /v1/disputes/{id}/accept`: `{}` or none. */
export function parseAccept(body: unknown): void {
  readBody(body, [], { optional: true });
}

const RAISE_FIELDS = ['paymentId', 'kind', 'reason', 'amount', 'dueBy'] as const;

/** The body of `POST /_control/disputes`. */
export function parseRaise(body: unknown): RaiseInput {
  const fields = readBody(body, RAISE_FIELDS);
  if (typeof fields.paymentId !== 'string' || fields.paymentId === '') {
    throw invalidRequest('paymentId is required: the id of a succeeded payment.');
  }
  return {
    paymentId: fields.paymentId,
    kind: oneOf(fields.kind, 'kind', DISPUTE_KINDS, undefined),
    reason: oneOf(fields.reason, 'reason', DISPUTE_REASONS, 'fraudulent'),
    amount:
      fields.amount === undefined || fields.amount === null ? null : parseAmount(fields.amount, 'amount'),
    dueBy: parseDueBy(fields.dueBy),
  };
}

/** The body of `POST /_control/disputes/{id}/pre-arbitration`: `{}`, none or `{ "dueBy": "…" }`. */
export function parsePreArbitration(body: unknown): string | null {
  return parseDueBy(readBody(body, ['dueBy'], { optional: true }).dueBy);
}

/** The body of `POST /_control/disputes/{id}/escalate`: `{}` or none. */
export function parseEscalate(body: unknown): void {
  readBody(body, [], { optional: true });
}

function parseDueBy(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !ISO_TIME.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidRequest('dueBy must be an ISO 8601 time with its offset, e.g. "2026-12-01T10:00:00.000Z".');
  }
  return value;
}

function oneOf<T extends string>(
  value: unknown,
  name: string,
  allowed: readonly T[],
  fallback: T | undefined,
): T {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(`${name} must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}
