import { Type, type Static } from 'typebox';
import type { KeyReuse } from '../shared/idempotent-write.js';

/** Every `error.code` the service sends, with its HTTP status (spec section 7, plus documented additions). */
export const ERROR_STATUS = {
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  unauthorized: 401,
  ip_not_allowed: 401,
  forbidden: 403,
  insufficient_scope: 403,
  organization_frozen: 403,
  not_found: 404,
  validation_failed: 400,
  idempotency_key_reuse: 409,
  duplicate_request: 409,
  duplicate_merchant_reference: 409,
  insufficient_balance: 400,
  wallet_not_configured: 400,
  invalid_wallet_address: 400,
  amount_below_minimum: 400,
  payouts_unavailable: 503,
  too_many_requests: 429,
  provider_unavailable: 502,
  provider_rejected: 502,
  internal_error: 500,
  // Additions (docs/decisions/0002-error-envelope.md): transport-level failures the spec does not name.
  unsupported_media_type: 415,
  payload_too_large: 413,
  service_unavailable: 503,
  invalid_state_transition: 409,
  invalid_credentials: 401,
  // Operator API: a payout transaction hash already recorded for another payout (one payout per hash).
  tx_hash_in_use: 409,
  // A resource an organization may hold only so many of (webhook endpoints: 16 per environment).
  limit_reached: 409,
  // Disputes (issue 37, docs/decisions/0076-disputes.md): what chargebacks hold cannot be refunded; an
  // answer after the deadline, or a second one for the same stage, is refused.
  charge_disputed: 409,
  evidence_past_due: 409,
  evidence_already_submitted: 409,
  // Files (docs/files.md): checked by their bytes.
  file_type_not_allowed: 400,
  file_empty: 400,
  file_too_large: 413,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Stable per-field problem codes inside `details.issues[]`. */
export const ISSUE_CODES = [
  'required',
  'unknown_field',
  'invalid_type',
  'invalid_value',
  'invalid_format',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'invalid_json',
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

export interface ValidationIssue {
  /** Dotted path of the offending member (`customer.email`), the parameter name, or "" for the whole body. */
  path: string;
  /** Where the problem is: the JSON body, the query string, a path parameter or a header. */
  in: 'body' | 'query' | 'path' | 'header';
  code: IssueCode;
  message: string;
}

export class ApiError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = ERROR_STATUS[code];
  }

  static validation(issues: ValidationIssue[], message = 'The request is invalid.'): ApiError {
    return new ApiError('validation_failed', message, { issues });
  }

  /** 400 `validation_failed` for one body field whose value the command cannot take. */
  static invalidBody(path: string, message: string): ApiError {
    return ApiError.validation([{ path, in: 'body', code: 'invalid_value', message }]);
  }

  /**
   * 409 `idempotency_key_reuse`: the key was used in the last 24 hours by another API key of the
   * organization (its outcome is that key's) or with another body. The store's refusal and the routes'
   * own (a charge, payout or refund that carries the key, ADRs 0051 and 0052) say it the same way.
   */
  static idempotencyKeyReuse(reason: KeyReuse): ApiError {
    return reason === 'other_api_key'
      ? new ApiError(
          'idempotency_key_reuse',
          'This idempotency key was already used by another API key of the organization in the last 24 ' +
            'hours; its outcome belongs to that key. Use a new idempotency key.',
          { reason: 'other_api_key' },
        )
      : new ApiError(
          'idempotency_key_reuse',
          'This idempotency key was already used with a different request body in the last 24 hours.',
        );
  }
}

export const ValidationIssueSchema = Type.Object({
  path: Type.String(),
  in: Type.Enum(['body', 'query', 'path', 'header']),
  code: Type.Enum([...ISSUE_CODES]),
  message: Type.String(),
});

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable; clients switch on it.', examples: ['validation_failed'] }),
      message: Type.String({ description: 'For humans; may change without notice.' }),
      requestId: Type.String({ description: 'Trace id, prefix `req_`.', pattern: '^req_' }),
      details: Type.Optional(
        Type.Object(
          { issues: Type.Optional(Type.Array(ValidationIssueSchema)) },
          {
            additionalProperties: true,
            description: 'For `validation_failed`, `issues[]` lists per-field problems.',
          },
        ),
      ),
    }),
  },
  { description: 'The error envelope of every failure (spec section 7).' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

export function envelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
  };
}

/** Response schemas of the failures a route can produce, keyed by status, for route declarations. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorEnvelopeSchema> {
  // A route that may fail (500) may also find the database unavailable, during a failover (ADR 0040) or
  // when the process shuts down: 503 `service_unavailable`.
  const all = statuses.includes(500) && !statuses.includes(503) ? [...statuses, 503] : statuses;
  return Object.fromEntries(all.map((status) => [status, ErrorEnvelopeSchema]));
}

/**
 * How a module's domain errors read at the edge: one entry per `code`, so adding an error to a module's
 * union without saying how it answers fails to compile.
 */
export type ErrorTable<E extends { code: string }> = {
  [K in E['code']]: (error: Extract<E, { code: K }>) => ApiError;
};

/** The envelope of a domain error, through its module's table. */
export function toApiError<E extends { code: string }>(table: ErrorTable<E>, error: E): ApiError {
  const entry = table[error.code as E['code']] as (error: E) => ApiError;
  return entry(error);
}
