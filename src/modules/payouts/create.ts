import { isUniqueViolation } from '../../db/errors.js';
import { keyReuseOf, requestFingerprint } from '../../shared/idempotent-write.js';
import { DAY } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutError } from './errors.js';
import type { PayoutRow } from './model.js';
import { conversion, quote, spreadOf } from './rates.js';
import * as payouts from './repository.js';
import { payoutView, type PayoutCreate, type PayoutView } from './schemas.js';
import { debitNewPayout, insertPayout, type KeyedRequest } from './new-payout.js';
import type { Owner } from '../../shared/owner.js';

/** How long a key names its payout: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

/**
 * The answer to a request whose idempotency key a payout made within the window holds: that payout
 * when the request is a retry of the one that made it (same body, same API key), else
 * `idempotency_key_reuse`. Never a second payout.
 */
function answerOfHolder(
  holder: PayoutRow,
  owner: Owner & { keyId?: string },
  request: KeyedRequest,
): Result<PayoutView, PayoutError> {
  const reason = keyReuseOf(
    { createdBy: holder.created_by, fingerprint: holder.request_fingerprint },
    { caller: owner.keyId ?? null, fingerprint: request.fingerprint },
    // A payout holds a key only with its fingerprint (migration 0031 added both).
    () => false,
  );
  return reason === undefined ? ok(payoutView(holder)) : err({ code: 'idempotency_key_reuse', reason });
}

/**
 * A merchant's payout (docs/decisions/0028-payouts.md). Creation checks, in the spec's order, a
 * destination wallet, the network minimum and the available balance, in one transaction whose ledger
 * entry serialises the owner's payouts; the rate is quoted before it (no transaction spans a call to
 * another system).
 * With `idempotencyKey`, the payout carries the key (docs/decisions/0051-payout-idempotency.md): while
 * a payout made in the last 24 hours holds it, the request answers that payout when its body and API
 * key are the same, `idempotency_key_reuse` otherwise; it never makes a second payout.
 * With `audit`, the payout's `payout.created` audit entry is written by the transaction that makes it
 * (never by a retry answered the payout already made): `actor` and where the request came from.
 */
export async function createPayout(
  deps: PayoutServiceDeps,
  owner: Owner & { keyId?: string },
  input: PayoutCreate,
  options: {
    idempotencyKey?: string | undefined;
    audit?: { actor: string; requestId: string | null; ip: string | null };
  } = {},
): Promise<Result<PayoutView, PayoutError>> {
  const keyed: KeyedRequest | undefined =
    options.idempotencyKey === undefined
      ? undefined
      : { key: options.idempotencyKey, fingerprint: requestFingerprint(deps.fingerprints, input) };
  let releaseBefore: Date | undefined;
  if (keyed) {
    // A retry of a request that made its payout (before a crash, or after its idempotency claim
    // lapsed) answers that payout, before a rate is even asked for.
    const holder = await payouts.findByIdempotencyKey(deps.db, owner, keyed.key);
    const rememberedSince = new Date(deps.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
    if (holder && holder.created_at > rememberedSince) return answerOfHolder(holder, owner, keyed);
    // Forgotten after the idempotency window: the old payout lets go of it as the new one takes it.
    if (holder) releaseBefore = rememberedSince;
  }
  const quoted = await quote(deps, owner.environment);
  if (!quoted.ok) return quoted;
  try {
    return await deps.db.transaction().execute(async (trx): Promise<Result<PayoutView, PayoutError>> => {
      const destination = await deps.wallets.destination(trx, owner, input.walletId);
      if (!destination.ok) {
        return err({
          code: 'wallet_not_configured',
          reason: destination.reason,
          ...(input.walletId !== undefined ? { walletId: input.walletId } : {}),
        });
      }
      const { wallet } = destination;
      const minimum = await payouts.minimumFor(trx, wallet.network, owner.environment);
      const converted = conversion(
        BigInt(input.amount),
        quoted.value,
        await spreadOf(deps, trx, owner.environment),
      );
      if (BigInt(input.amount) < BigInt(minimum) || converted.converted === 0n) {
        return err({ code: 'amount_below_minimum', minimum, network: wallet.network });
      }
      const { id, now, debit } = await debitNewPayout(deps, trx, owner, converted);
      if (!debit.ok) {
        // The same request sent twice at once (a double click on the dashboard's confirmation): the
        // other one took the balance under the lock this one waited on, and its payout is the answer.
        const holder = keyed ? await payouts.findByIdempotencyKey(trx, owner, keyed.key) : undefined;
        if (keyed && holder && releaseBefore === undefined) return answerOfHolder(holder, owner, keyed);
        return err({ code: 'insufficient_balance', available: debit.available });
      }
      if (keyed && releaseBefore) await payouts.releaseIdempotencyKey(trx, owner, keyed.key, releaseBefore);
      const row = await insertPayout(deps, trx, owner, {
        id,
        now,
        wallet,
        quote: quoted.value,
        conversion: converted,
        automatic: false,
        description: input.description ?? null,
        metadata: input.metadata ?? {},
        idempotency: keyed,
      });
      const view = payoutView(row);
      if (options.audit) {
        await deps.audit.record(trx, {
          ...options.audit,
          action: 'payout.created',
          targetType: 'payout',
          targetId: view.id,
          organizationId: owner.organizationId,
          after: {
            amount: view.amount,
            payoutAmount: view.payoutAmount,
            walletId: view.walletId,
            environment: owner.environment,
          },
        });
      }
      return ok(view);
    });
  } catch (error) {
    // Two requests with one key got past the idempotency store at once (the first outlived its claim):
    // the later insert rolled its transaction back, and it answers the payout the other one made.
    if (keyed && isUniqueViolation(error, 'payouts_idempotency_key')) {
      const holder = await payouts.findByIdempotencyKey(deps.db, owner, keyed.key);
      if (holder) return answerOfHolder(holder, owner, keyed);
    }
    throw error;
  }
}
