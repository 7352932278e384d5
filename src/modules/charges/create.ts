import type { Kdb, Trx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Environment, FeatureFlag } from '../../db/schema.js';
import type { ValidationIssue } from '../../http/errors.js';
import {
  keyReuseOf,
  requestFingerprint,
  type RequestFingerprint,
  type RequestFingerprints,
} from '../../shared/idempotent-write.js';
import { metadataIssues } from '../../http/input.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { DAY } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AcquirerMethod, CreatePaymentInput } from '../acquirer/types.js';
import type { CustomerDetails } from '../customers/index.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import { finishCreation, takeLease, type CreationOutcome } from './finish-creation.js';
import type { ChargeRow } from './model.js';
import type { ChargeInsert } from './repository/charges.js';
import * as creation from './repository/creation.js';
import type { ChargeCreate, ChargeView } from './schemas.js';
import { toView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** How long a key names its charge: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

const ACQUIRER_METHOD: Record<ChargeRow['payment_method'], AcquirerMethod> = {
  bank_transfer: 'bank_transfer',
  credit_card_tr: 'card',
  credit_card_international: 'card',
};

/** How a creation is asked for, besides its body. */
export interface ChargeCreateOptions {
  idempotencyKey: string | undefined;
  /** The organization's feature flags (`customerId` needs `customers`). */
  features?: readonly FeatureFlag[];
  /** The request's idempotent outcome, stored in phase 2's statement (ADR 0046). */
  outcome?: CreationOutcome;
}

/**
 * Phase 1 of a creation (ADRs 0007, 0046): the checks, then the charge written before the acquirer hears
 * of it; phase 2 (finishCreation) asks the acquirer.
 */
export async function createCharge(
  deps: ChargeServiceDeps,
  owner: Owner,
  input: ChargeCreate,
  options: ChargeCreateOptions,
): Promise<Result<ChargeView, ChargeError>> {
  const { db, clock, box } = deps;
  const { idempotencyKey, features } = options;
  if (input.customerId !== undefined && !(features ?? []).includes('customers'))
    return err({ code: 'customers_disabled' });
  const issues = checkInput(input, owner.environment);
  if (issues.length > 0) return err({ code: 'invalid_input', issues });
  const customer = await customerOf(deps, owner, input);
  if (!customer.ok) return customer;
  const acquirer = deps.acquirerFor(owner.environment);
  if (!acquirer) return err({ code: 'acquirer_not_configured' });

  const now = clock.now();
  const id = newId('ch', now);
  // What a retry with the same key must match to continue this charge (ADR 0052).
  const requestFingerprint =
    idempotencyKey === undefined ? undefined : fingerprintOf(deps.fingerprints, input);
  const values = chargeRow(owner, input, {
    id,
    customer: customer.value,
    provider: acquirer.name,
    providerRequest: {
      idempotencyKey: id,
      amount: String(input.amount),
      currency: 'TRY',
      method: ACQUIRER_METHOD[input.paymentMethod],
      reference: id,
      description: input.merchantReference,
      notificationUrl: deps.urls.notifications(owner.environment),
      maxAttempts: deps.cardAttempts,
    },
    idempotencyKey,
    requestFingerprint: requestFingerprint?.value,
    now,
    leaseMs: deps.creationLeaseMs,
    expiresAfterMs: deps.chargeExpiresAfterMs,
  });
  // Phase 1 is one statement when the key is new (the usual case): the insert itself finds out,
  // through the key's unique index, whether a charge already holds the key.
  const rememberedSince = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  let releaseBefore: Date | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await insertCharge(db, owner, input, values, releaseBefore);
    if (!inserted.ok) return inserted;
    if (inserted.value) return finishCreation(deps, inserted.value, acquirer, options.outcome);
    // A `creating` or `created` charge holds the key (idempotencyKey is set: without one nothing
    // conflicts).
    const holder = await creation.findByIdempotencyKey(db, owner, idempotencyKey ?? '');
    if (!holder) continue; // it let go of the key in between: insert again
    if (holder.created_at > rememberedSince) {
      // Only a retry of the request that made the charge (same API key, same body) may continue or
      // see it: the idempotency store forgets a key whose request failed without a final answer
      // (provider_unavailable), so this is where another body under the key is told apart.
      const reuse = keyReuse(holder, owner, {
        values,
        input,
        requestFingerprint,
        heldIdNumber:
          holder.customer_id === null && holder.customer_id_number_enc !== null
            ? box.open(holder.customer_id_number_enc)
            : null,
      });
      if (reuse !== undefined) return err(reuse);
      // A retry of a request that created its charge (possibly before a crash) continues with it.
      if (holder.creation_state === 'created') return ok(toView(deps, holder));
      const leased = await takeLease(db, holder.id, now, deps.creationLeaseMs);
      if (!leased) return err({ code: 'creation_in_progress' });
      return finishCreation(deps, leased, acquirer, options.outcome);
    }
    // Forgotten after the idempotency window: the old charge lets go of it as the new one takes it.
    releaseBefore = rememberedSince;
  }
  return err({ code: 'creation_in_progress' });
}

/** What the charge records of its customer: the named customer's details, or the inline block's. */
async function customerOf(
  deps: Pick<ChargeServiceDeps, 'db' | 'box' | 'customers'>,
  owner: Owner,
  input: ChargeCreate,
): Promise<Result<ChargeCustomer, ChargeError>> {
  if (input.customerId === undefined) {
    return ok({
      id: null,
      name: input.customer?.name ?? null,
      email: input.customer?.email ?? null,
      phone: input.customer?.phone ?? null,
      reference: input.customer?.reference ?? null,
      idNumberSealed: input.customer?.idNumber === undefined ? null : deps.box.seal(input.customer.idNumber),
    });
  }
  const named = await deps.customers.detailsForCharge(deps.db, owner, input.customerId);
  if (!named) {
    return err({
      code: 'invalid_input',
      issues: [{ path: 'customerId', in: 'body', code: 'invalid_value', message: 'no such customer' }],
    });
  }
  return ok(named);
}

/** Rules the schema cannot say: the metadata size and the return URL's scheme per environment. */
function checkInput(input: ChargeCreate, environment: Environment): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (input.customerId !== undefined && input.customer !== undefined) {
    issues.push({
      path: 'customerId',
      in: 'body',
      code: 'invalid_value',
      message: 'send either customerId or an inline customer block, not both',
    });
  }
  issues.push(...metadataIssues(input.metadata));
  if (input.returnUrl !== undefined) {
    const allowed = environment === 'live' ? ['https:'] : ['https:', 'http:'];
    let protocol: string | undefined;
    try {
      protocol = new URL(input.returnUrl).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol === undefined || !allowed.includes(protocol)) {
      issues.push({
        path: 'returnUrl',
        in: 'body',
        code: 'invalid_value',
        message: environment === 'live' ? 'must be an https URL' : 'must be an http or https URL',
      });
    }
  }
  return issues;
}

/** The customer details a charge records (`id`: the named customer, or null for an inline block). */
type ChargeCustomer = Omit<CustomerDetails, 'id'> & { id: string | null };

/** Phase 1: the charge row, before the acquirer hears of it. */
function chargeRow(
  owner: Owner,
  input: ChargeCreate,
  options: {
    id: string;
    customer: ChargeCustomer;
    provider: string;
    providerRequest: CreatePaymentInput;
    idempotencyKey: string | undefined;
    requestFingerprint: string | undefined;
    now: Date;
    leaseMs: number;
    expiresAfterMs: number;
  },
): ChargeInsert {
  const { id, now } = options;
  return {
    id,
    organization_id: owner.organizationId,
    environment: owner.environment,
    amount: String(input.amount),
    currency: 'TRY',
    payment_method: input.paymentMethod,
    merchant_reference: input.merchantReference,
    creation_state: 'creating',
    creation_locked_until: new Date(now.getTime() + options.leaseMs),
    idempotency_key: options.idempotencyKey ?? null,
    request_fingerprint: options.requestFingerprint ?? null,
    created_by_key_id: owner.keyId ?? null,
    provider: options.provider,
    provider_request: JSON.stringify(options.providerRequest),
    provider_payment_id: null,
    provider_status: null,
    provider_error: null,
    customer_name: options.customer.name,
    customer_email: options.customer.email,
    customer_phone: options.customer.phone,
    customer_reference: options.customer.reference,
    customer_id_number_enc: options.customer.idNumberSealed,
    customer_id: options.customer.id,
    metadata: input.metadata === undefined ? null : JSON.stringify(input.metadata),
    return_url: input.returnUrl ?? null,
    expires_at: new Date(now.getTime() + options.expiresAfterMs),
    created_at: now,
    updated_at: now,
  };
}

/**
 * Writes phase 1: the charge, or undefined when a `creating` or `created` charge of the owner holds its
 * idempotency key. With `releaseBefore`, a holder created before it (a key forgotten after the window)
 * lets go of the key first, in the same transaction.
 */
async function insertCharge(
  db: Kdb,
  owner: Owner,
  input: ChargeCreate,
  values: ChargeInsert,
  releaseBefore: Date | undefined,
): Promise<Result<ChargeRow | undefined, ChargeError>> {
  try {
    if (releaseBefore === undefined || values.idempotency_key == null)
      return ok(await creation.insertUnlessKeyHeld(db, values));
    const key = values.idempotency_key;
    return ok(
      await db.transaction().execute(async (trx: Trx) => {
        await creation.releaseForgottenKey(trx, owner, key, releaseBefore);
        return creation.insertUnlessKeyHeld(trx, values);
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error, 'charges_merchant_reference_key')) {
      const holder = await creation.findReferenceHolder(db, owner, input.merchantReference);
      return err({ code: 'duplicate_merchant_reference', chargeId: holder ?? null });
    }
    // Two requests with one key got past the idempotency store at once (its claim had lapsed).
    if (isUniqueViolation(error, 'charges_idempotency_key')) return err({ code: 'creation_in_progress' });
    throw error;
  }
}

/**
 * What a retry with the same idempotency key must match (ADR 0052): the request's fingerprint (ADR 0054),
 * without the customer's ID number. Eleven digits could be guessed back from a plain hash in a database
 * dump (decision 17 seals them), as charges before ADR 0054 stored it; a retry's ID number is compared
 * with the sealed one instead.
 */
function fingerprintOf(fingerprints: RequestFingerprints, input: ChargeCreate): RequestFingerprint {
  const { customer } = input;
  const hashed =
    customer?.idNumber === undefined ? input : { ...input, customer: { ...customer, idNumber: undefined } };
  return requestFingerprint(fingerprints, hashed);
}

/**
 * Why a request may not continue the charge that holds its idempotency key (spec section 4 rule 3,
 * ADR 0052), or undefined when it is a retry of the request that made it: the same API key and the same
 * body. A charge written without a fingerprint (before migration 0032, or by a process of the previous
 * release during a deploy) is compared on what it recorded of its request: amount, method, reference,
 * return URL, customer and metadata. `heldIdNumber`: the charge's inline customer ID number, opened.
 */
function keyReuse(
  holder: ChargeRow,
  owner: Owner,
  retry: {
    values: ChargeInsert;
    input: ChargeCreate;
    requestFingerprint: RequestFingerprint | undefined;
    heldIdNumber: string | null;
  },
): Extract<ChargeError, { code: 'idempotency_key_reuse' }> | undefined {
  const request = retry.values;
  const reason = keyReuseOf(
    { createdBy: holder.created_by_key_id, fingerprint: holder.request_fingerprint },
    { caller: owner.keyId ?? null, fingerprint: retry.requestFingerprint },
    () =>
      holder.amount === String(request.amount) &&
      holder.currency === request.currency &&
      holder.payment_method === request.payment_method &&
      holder.merchant_reference === request.merchant_reference &&
      holder.return_url === (request.return_url ?? null) &&
      holder.customer_id === (request.customer_id ?? null) &&
      holder.customer_name === (request.customer_name ?? null) &&
      holder.customer_email === (request.customer_email ?? null) &&
      holder.customer_phone === (request.customer_phone ?? null) &&
      holder.customer_reference === (request.customer_reference ?? null) &&
      canonicalJson(holder.metadata) === canonicalJson(retry.input.metadata ?? null),
  );
  if (reason !== undefined) return { code: 'idempotency_key_reuse', reason };
  // A named customer's ID number is the customer's, and `customerId` is compared itself.
  const sameIdNumber =
    holder.customer_id !== null || retry.heldIdNumber === (retry.input.customer?.idNumber ?? null);
  return sameIdNumber ? undefined : { code: 'idempotency_key_reuse', reason: 'other_body' };
}
