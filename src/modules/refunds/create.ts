import type { Environment } from '../../db/schema.js';
import { keyReuseOf, requestFingerprint, type RequestFingerprint } from '../../shared/idempotent-write.js';
import { DAY } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { DueQueue } from '../../worker/queue.js';
import { AcquirerRejectedError, AcquirerUnavailableError } from '../acquirer/types.js';
import { ask } from './acquirer-answers.js';
import type { RefundServiceDeps } from './deps.js';
import type { RefundError } from './errors.js';
import type { RefundRow } from './model.js';
import * as refunds from './repository.js';
import { refundView, type RefundCreate, type RefundView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

/** How long a key names its refund: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

/**
 * A refund of all or part of a succeeded charge: its amount reserved under the charge's row lock, then the
 * acquirer asked with the refund id as its idempotency key.
 */
export async function createRefund(
  deps: RefundServiceDeps,
  retry: DueQueue,
  owner: Owner,
  chargeId: string,
  input: RefundCreate,
  { idempotencyKey }: { idempotencyKey: string | undefined },
): Promise<Result<RefundView, RefundError>> {
  const { db, clock } = deps;
  type Reserved = {
    refund: RefundRow;
    charge: { environment: Environment; provider_payment_id: string | null };
  };
  const fingerprint = idempotencyKey === undefined ? undefined : requestFingerprint(deps.fingerprints, input);
  const reserved = await db.transaction().execute(async (trx): Promise<Result<Reserved, RefundError>> => {
    const charge = await deps.charges.lockVisible(trx, owner, chargeId);
    if (!charge) return err({ code: 'charge_not_found' });
    // A refund made more than 24 hours ago under the key: the key is forgotten (spec section 4), and
    // the request is a new refund; the old one lets go of the key as the new one takes it (ADR 0054).
    let forgotten: RefundRow | undefined;
    if (idempotencyKey !== undefined) {
      // A retry of a request whose refund is still pending (the acquirer was unavailable) asks again
      // for that same refund instead of reserving a second one. Only a retry: the idempotency store
      // forgets a key whose request ended without a final answer, so another body or another API key
      // under the key is told apart here (ADR 0052). The charge's row lock orders requests under a key.
      const earlier = await refunds.findByIdempotencyKey(trx, charge.id, idempotencyKey);
      const rememberedSince = new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
      if (earlier && earlier.created_at > rememberedSince) {
        const reuse = keyReuse(earlier, owner, input, fingerprint);
        return reuse === undefined ? ok({ refund: earlier, charge }) : err(reuse);
      }
      forgotten = earlier;
    }
    if (charge.status !== 'succeeded') {
      return err({ code: 'charge_not_refundable', status: charge.status });
    }
    const pending = await refunds.pendingTotal(trx, charge.id);
    const remaining = BigInt(charge.amount) - BigInt(charge.refunded_amount) - BigInt(pending);
    const amount = input.amount === undefined ? remaining : BigInt(input.amount);
    if (remaining <= 0n) return err({ code: 'nothing_to_refund' });
    if (amount > remaining) return err({ code: 'exceeds_refundable', remaining: remaining.toString() });
    // What chargebacks withdrew is the issuer's already: refunding it too would pay the customer twice.
    const held = await deps.disputes.heldOn(trx, charge.id);
    if (held > 0n && amount > remaining - held)
      return err({
        code: 'charge_disputed',
        refundable: (remaining > held ? remaining - held : 0n).toString(),
      });
    if (forgotten) await refunds.releaseIdempotencyKey(trx, forgotten.id);
    const now = clock.now();
    const refund = await refunds.insert(trx, {
      id: newId('re', now),
      charge_id: charge.id,
      organization_id: charge.organization_id,
      environment: charge.environment,
      amount: amount.toString(),
      currency: 'TRY',
      status: 'pending',
      reason: input.reason ?? null,
      idempotency_key: idempotencyKey ?? null,
      request_fingerprint: fingerprint?.value ?? null,
      created_by_key_id: owner.keyId ?? null,
      provider_refund_id: null,
      failure_code: null,
      failure_message: null,
      created_at: now,
      updated_at: now,
    });
    return ok({ refund, charge });
  });
  if (!reserved.ok) return reserved;
  const { refund, charge } = reserved.value;
  const acquirer = deps.acquirerFor(charge.environment);
  if (!acquirer || charge.provider_payment_id === null) return err({ code: 'acquirer_not_configured' });
  if (refund.status !== 'pending') return ok(refundView(refund));
  try {
    return ok(refundView(await ask(deps, retry, refund, charge.provider_payment_id, acquirer)));
  } catch (error) {
    // The refund stays pending and is retried in the background, as after an outage.
    if (
      error instanceof AcquirerUnavailableError ||
      (error instanceof AcquirerRejectedError && error.transient)
    ) {
      return err({ code: 'provider_unavailable', refundId: refund.id });
    }
    if (error instanceof AcquirerRejectedError) {
      return err({
        code: 'provider_rejected',
        refundId: refund.id,
        providerCode: error.providerCode,
        providerStatus: error.providerHttpStatus,
        message: error.sanitizedMessage,
      });
    }
    throw error;
  }
}

/**
 * Why a request may not continue or see the refund that holds its idempotency key (spec section 4 rule 3,
 * ADR 0052), or undefined when it is a retry of the request that made it: the same API key and the same
 * body. A refund written without a fingerprint (before migration 0033, or by a process of the previous
 * release during a deploy) is compared on what it recorded: the reason, and the amount when the retry
 * names one (a refund of everything that remained recorded the amount it came to, not its absence).
 */
function keyReuse(
  holder: RefundRow,
  owner: Owner,
  input: RefundCreate,
  fingerprint: RequestFingerprint | undefined,
): Extract<RefundError, { code: 'idempotency_key_reuse' }> | undefined {
  const reason = keyReuseOf(
    { createdBy: holder.created_by_key_id, fingerprint: holder.request_fingerprint },
    { caller: owner.keyId ?? null, fingerprint },
    () =>
      holder.reason === (input.reason ?? null) &&
      (input.amount === undefined || holder.amount === String(input.amount)),
  );
  return reason === undefined ? undefined : { code: 'idempotency_key_reuse', reason };
}
