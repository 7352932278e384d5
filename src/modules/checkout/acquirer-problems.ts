import { AcquirerRejectedError, AcquirerUnavailableError } from '../acquirer/types.js';
import type { ChargeRow } from '../charges/service.js';
import type { CheckoutServiceDeps } from './deps.js';

export type AcquirerProblem = 'rejected' | 'unavailable';

export const isAcquirerProblem = (
  error: unknown,
): error is AcquirerRejectedError | AcquirerUnavailableError =>
  error instanceof AcquirerRejectedError || error instanceof AcquirerUnavailableError;

// A "not now" 4xx (408, 425, 429) refused nothing: the customer is told to try again, as after an outage.
export const problemOf = (error: AcquirerRejectedError | AcquirerUnavailableError): AcquirerProblem =>
  error instanceof AcquirerRejectedError && !error.transient ? 'rejected' : 'unavailable';

export const logProblem = (
  deps: Pick<CheckoutServiceDeps, 'logger'>,
  error: AcquirerRejectedError | AcquirerUnavailableError,
  chargeId: string,
  step: string,
) =>
  deps.logger.warn(
    error instanceof AcquirerRejectedError
      ? { chargeId, step, providerCode: error.providerCode, providerHttpStatus: error.providerHttpStatus }
      : { chargeId, step, problem: error.message },
    'checkout: the acquirer did not complete the step',
  );

/** Reads the payment back and applies it; a failure leaves the charge as it is (logged). */
export async function syncQuietly(
  deps: Pick<CheckoutServiceDeps, 'completion' | 'logger'>,
  charge: ChargeRow,
  step: string,
): Promise<ChargeRow> {
  try {
    return (await deps.completion.sync(charge.id)).charge;
  } catch (error) {
    if (!isAcquirerProblem(error)) throw error;
    logProblem(deps, error, charge.id, step);
    return charge;
  }
}

/**
 * After a step the acquirer failed: anything but an acquirer problem is a bug and is thrown again; a
 * problem is logged and the payment read back, so that what did reach the acquirer is on the charge.
 */
export async function afterAcquirerProblem(
  deps: Pick<CheckoutServiceDeps, 'completion' | 'logger'>,
  error: unknown,
  charge: ChargeRow,
  step: string,
): Promise<{ charge: ChargeRow; problem: AcquirerProblem }> {
  if (!isAcquirerProblem(error)) throw error;
  logProblem(deps, error, charge.id, step);
  return { charge: await syncQuietly(deps, charge, step), problem: problemOf(error) };
}
