import type { PaymentStatus } from './model.js';

/** A failure answered with the error envelope; `paymentStatus` fills `error.status`. */
export class AcquirerError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly paymentStatus: PaymentStatus | null = null,
  ) {
    super(message);
    this.name = 'AcquirerError';
  }
}

/** The error envelope of every failure. */
export interface ErrorBody {
  error: { code: string; message: string; status: PaymentStatus | null };
}

/** The envelope of a failure; `status` is the payment's status, or null when no payment is concerned. */
export function errorBody(code: string, message: string, status: PaymentStatus | null): ErrorBody {
  return { error: { code, message, status } };
}

/** 400 `invalid_request`: the request is malformed; the message says what is expected. */
export function invalidRequest(message: string, status: PaymentStatus | null = null): AcquirerError {
  return new AcquirerError(400, 'invalid_request', message, status);
}

/** 404 `payment_not_found`. */
export function paymentNotFound(): AcquirerError {
  return new AcquirerError(404, 'payment_not_found', 'No payment has this id.');
}

/** 404 `dispute_not_found`. */
export function disputeNotFound(): AcquirerError {
  return new AcquirerError(404, 'dispute_not_found', 'No dispute has this id.');
}

/** 404 `not_found`: no such route, fault rule or challenge. */
export function notFound(message: string): AcquirerError {
  return new AcquirerError(404, 'not_found', message);
}

/** 409 `invalid_state`: the payment cannot do that in its status. */
export function invalidState(status: PaymentStatus, message: string): AcquirerError {
  return new AcquirerError(409, 'invalid_state', message, status);
}

/** 401 `authentication_failed`. */
export function authenticationFailed(message: string): AcquirerError {
  return new AcquirerError(401, 'authentication_failed', message);
}
