import type { Trx } from '../../db/database.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { Owner } from '../../shared/owner.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerDispute,
} from '../acquirer/types.js';
import { applyAcquirerDispute, problemsOf, type ApplyDeps } from './apply.js';
import type { DisputeServiceDeps } from './deps.js';
import type { DisputeError } from './errors.js';
import type { DisputeRow } from './model.js';
import * as disputes from './repository.js';
import { disputeChargeOf, disputeView, type DisputeView } from './views.js';

/**
 * The merchant's answers to a dispute (evidence, acceptance) are calls to the acquirer, made outside any
 * transaction; what the acquirer answers is then applied by the same path as a notification's read-back
 * (apply.ts), under the dispute's row lock, so that the answer and a notification of it are applied once.
 */

export type AnswerDeps = ApplyDeps & Pick<DisputeServiceDeps, 'acquirerFor' | 'charges' | 'files'>;

/** What the acquirer answered: the dispute as it is now, or its refusal (4xx, on its merits). */
export type Answer = { dispute: AcquirerDispute } | { refused: AcquirerRejectedError };

/** The environment's acquirer, or the refusal to answer without one. */
export function acquirerOf(deps: AnswerDeps, row: DisputeRow): Result<Acquirer, DisputeError> {
  const acquirer = deps.acquirerFor(row.environment);
  return acquirer ? ok(acquirer) : err({ code: 'acquirer_not_configured' });
}

/** One call to the acquirer: an outage (or a "not now" on every attempt) is `provider_unavailable`. */
export async function ask(call: () => Promise<AcquirerDispute>): Promise<Result<Answer, DisputeError>> {
  try {
    return ok({ dispute: await call() });
  } catch (error) {
    if (
      error instanceof AcquirerUnavailableError ||
      (error instanceof AcquirerRejectedError && error.transient)
    )
      return err({ code: 'provider_unavailable' });
    if (error instanceof AcquirerRejectedError) return ok({ refused: error });
    throw error;
  }
}

export const rejectedBy = (error: AcquirerRejectedError): DisputeError => ({
  code: 'provider_rejected',
  providerCode: error.providerCode,
  providerStatus: error.providerHttpStatus,
  message: error.sanitizedMessage,
});

/** The dispute read back, after a refusal that may say the acquirer knows more than the row. */
export async function readBack(
  acquirer: Acquirer,
  row: DisputeRow,
): Promise<Result<AcquirerDispute, DisputeError>> {
  const read = await ask(() => acquirer.getDispute(row.provider_dispute_id));
  if (!read.ok) return read;
  return 'refused' in read.value ? err(rejectedBy(read.value.refused)) : ok(read.value.dispute);
}

/**
 * Applies the acquirer's `resource` to the owner's dispute `row` under the row's lock, then `also` (what
 * the answer records besides) in a transaction of its own; the dispute as it is then. A resource that is
 * not this dispute's, or that the gateway cannot apply, is left to the notification's read-back.
 */
export async function applyAnswer(
  deps: AnswerDeps,
  owner: Owner,
  row: DisputeRow,
  resource: AcquirerDispute,
  also?: (trx: Trx, row: DisputeRow) => Promise<DisputeRow>,
): Promise<DisputeView> {
  const charge = await deps.charges.findVisible(owner, row.charge_id);
  if (!charge) throw new Error(`dispute ${row.id}: its charge ${row.charge_id} is not visible`);
  const problems = problemsOf(resource);
  if (resource.id !== row.provider_dispute_id) problems.push('id');
  if (resource.paymentId !== charge.provider_payment_id) problems.push('paymentId');
  if (resource.reference !== charge.id) problems.push('reference');
  // The charge's row lock first, then the dispute's: the order of a notification of the same charge (and
  // of a refund, which asks what disputes hold under the charge's lock).
  const inLock = (write: (trx: Trx, locked: DisputeRow) => Promise<DisputeRow>) =>
    deps.db.transaction().execute(async (trx) => {
      await deps.charges.lockVisible(trx, owner, row.charge_id);
      const locked = await disputes.lockOwnedDispute(trx, owner, row.id);
      if (!locked) throw new Error(`dispute ${row.id} vanished`);
      return write(trx, locked);
    });
  let updated = await inLock(async (trx, locked) => {
    if (problems.length === 0) await applyAcquirerDispute(deps, trx, row.provider, charge, resource);
    else
      deps.logger.warn(
        { disputeId: row.id, problems, providerDisputeId: resource.id },
        'the acquirer’s answer to a dispute is unusable; its notification’s read-back will apply it',
      );
    return (await disputes.findDispute(trx, owner, row.id)) ?? locked;
  });
  if (also) updated = await inLock(also);
  return disputeView(updated, disputeChargeOf(charge));
}
