import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Environment, FeatureFlag } from '../../db/schema.js';
import type { ValidationIssue } from '../../http/errors.js';
import { keyReuseOf, requestFingerprint } from '../../http/idempotency.js';
import type { Companion, RequestFingerprint, RequestFingerprints } from '../../http/idempotency-store.js';
import { metadataIssues } from '../../http/input.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { DAY, type Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { toPage, type CreatedWindow, type Cursor, type CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { SecretBox } from '../../shared/secret-box.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerMethod,
  type AcquirerPayment,
  type CreatePaymentInput,
} from '../acquirer/types.js';
import type { CustomerDetails, CustomerService } from '../customers/index.js';
import type { ChargeError } from './errors.js';
import type { ChargeOwner, ChargeRow } from './model.js';
import type { ChargeInsert } from './repository.js';
import * as charges from './repository.js';
import type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository.js';
import { type ChargeCreate, type ChargeListQuery, type ChargeView } from './schemas.js';

export type { ChargeOwner, ChargeRow } from './model.js';
export type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository.js';

export interface ChargeServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  box: SecretBox;
  /** The keyed hash a charge records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  logger: Logger;
  cursors: CursorCodec;
  /** The acquirer of an environment; undefined when none is configured (live without LIVE_ACQUIRER_URL). */
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  urls: {
    /** `{checkout_url}`: paymentPageUrl is `{checkout_url}/c/<paymentId>`. */
    checkout: () => string;
    /** Where an environment's acquirer sends its notifications (`/webhooks/v1/payments` of that listener). */
    notifications: (environment: Environment) => string;
  };
  /** How long a creation holds its charge before a retry or the recovery job may take over. */
  creationLeaseMs: number;
  chargeExpiresAfterMs: number;
  cardAttempts: number;
  /** A charge made for a customer (`customerId`) copies its details (flag `customers`). */
  customers: Pick<CustomerService, 'detailsForCharge'>;
}

/**
 * The idempotent outcome of a creation request, written in the same statement as phase 2 (ADR 0046): the
 * acquirer's ids and the stored 201 commit together, one commit instead of two. The route provides it
 * when the request holds an idempotency claim.
 */
export interface CreationOutcome {
  /** The exact body the route answers the view with (its response serialiser for 201). */
  serialize(view: ChargeView): string;
  /** Stores `{ status: 201, body }` in one statement with `companion`; see IdempotencyStore.completeWith. */
  storeWith<R>(
    outcome: { status: number; body: string },
    companion: Companion<R>,
  ): Promise<{ rows: R[]; stored: boolean }>;
}

export interface ChargeService {
  create(
    owner: ChargeOwner,
    input: ChargeCreate,
    options: {
      idempotencyKey: string | undefined;
      /** The organization's feature flags (`customerId` needs `customers`). */
      features?: readonly FeatureFlag[];
      /** The request's idempotent outcome, stored in phase 2's statement (ADR 0046). */
      outcome?: CreationOutcome;
    },
  ): Promise<Result<ChargeView, ChargeError>>;
  get(owner: ChargeOwner, id: string): Promise<Result<ChargeView, ChargeError>>;
  list(
    owner: ChargeOwner,
    query: ChargeListQuery,
  ): Promise<Result<{ data: ChargeView[]; nextCursor: string | null }, ChargeError>>;
  /**
   * The dashboard's Payments list (issue 15 item 1): the owner's charges matching the filters, in one of
   * the sorts, cursor paged. A cursor is bound to its filters and sort: another list's is refused.
   */
  search(
    owner: ChargeOwner,
    query: { limit: number; cursor?: string; filter: ChargeSearch; sort: ChargeSort },
  ): Promise<Result<{ data: ChargeView[]; nextCursor: string | null }, ChargeError>>;
  /** The charge page: the charge and what its timeline needs (attempts, notifications, when it ended). */
  details(owner: ChargeOwner, id: string): Promise<Result<ChargeDetails, ChargeError>>;
  /**
   * One page of an export (issue 15 item 4): the created charges made in `window`, oldest first, after
   * the (createdAt, id) of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: ChargeOwner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<ChargeView[]>;
  /**
   * The operator console's payment search (issue 15 item 7): created charges of every organization and
   * environment matching one exact key, newest first, at most `limit`, each with its owner.
   */
  searchAcrossOrganizations(
    match: OperatorChargeMatch,
    limit: number,
  ): Promise<Array<{ organizationId: string; environment: Environment; charge: ChargeView }>>;
  /**
   * Product decision 15: finishes or abandons creations whose request died between phase 1 and phase 2
   * (a crash, or an acquirer outage the merchant did not retry). Returns what it did.
   */
  recoverInterruptedCreations(
    limit?: number,
  ): Promise<{ finished: number; abandoned: number; deferred: number }>;
}

/** What the charge page shows beyond the API's view of a charge. */
export interface ChargeDetails {
  charge: ChargeView;
  /** Card attempts the checkout counted (the card of the last one is `charge.card`). */
  cardAttempts: number;
  /**
   * Each of them, in order, with what the acquirer answered (migration 0023; a charge attempted before it
   * has none, only the count).
   */
  attempts: Array<{
    number: number;
    outcome: 'succeeded' | 'declined' | 'challenge' | 'error';
    failureCode: string | null;
    card: { brand: string | null; last4: string } | null;
    at: string;
  }>;
  /** When the charge reached its final status; null while pending. */
  finalizedAt: string | null;
  /** The acquirer's notifications about the charge, oldest first: card brand and last four only. */
  notifications: Array<{
    id: string;
    type: string;
    outcome: string;
    receivedAt: string;
    paymentStatus: string | null;
    card: { brand: string; last4: string } | null;
    refundAmount: string | null;
  }>;
}

/** How long a key names its charge: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

const ACQUIRER_METHOD: Record<ChargeRow['payment_method'], AcquirerMethod> = {
  bank_transfer: 'bank_transfer',
  credit_card_tr: 'card',
  credit_card_international: 'card',
};

export function createChargeService(deps: ChargeServiceDeps): ChargeService {
  const { db, clock, box, logger } = deps;
  const readDb = deps.readDb ?? db;

  const toView = (row: ChargeRow): ChargeView => chargeView(row, deps.urls.checkout());

  /**
   * Phase 2: the acquirer call recorded in phase 1 (the charge id is its idempotency key), then the
   * acquirer's ids.
   */
  async function finishCreation(
    charge: ChargeRow,
    acquirer: Acquirer,
    outcome: CreationOutcome | undefined,
  ): Promise<Result<ChargeView, ChargeError>> {
    let payment: AcquirerPayment;
    try {
      payment = await acquirer.createPayment(charge.provider_request as CreatePaymentInput);
      assertPaymentMatches(charge, payment);
    } catch (error) {
      if (error instanceof AcquirerRejectedError) {
        await markRejected(db, charge.id, error, clock.now());
        return err({
          code: 'provider_rejected',
          providerCode: error.providerCode,
          providerStatus: error.providerHttpStatus,
          message: error.sanitizedMessage,
        });
      }
      // Nothing final is known: the lease is released so that a retry of the same key can go again at
      // once; the recovery job settles the charge if nobody does.
      await charges.releaseLease(db, charge.id, clock.now());
      if (error instanceof AcquirerUnavailableError) return err({ code: 'provider_unavailable' });
      throw error;
    }
    const now = clock.now();
    if (outcome !== undefined) {
      // Nothing but the lease's holder writes a `creating` charge (notifications find a charge by the
      // payment id this very statement sets; the recovery job and a retry first take the lease): while
      // the lease is still ours, the row is phase 1's plus this patch, so its view is known before the
      // statement runs, and the stored outcome is exactly the 201 the route sends.
      const patch = createdPatch(payment, now);
      const expected = toView({ ...charge, ...patch, creation_state: 'created' });
      const done = await outcome.storeWith(
        { status: 201, body: outcome.serialize(expected) },
        charges.finishCreationHolding(charge.id, charge.creation_locked_until, patch),
      );
      if (done.rows.length > 0) return ok(expected);
      // The lease was taken over (this request outlived it): finish as a lone write, as without a key.
    }
    const created = await markCreated(db, charge.id, payment, now);
    if (created) return ok(toView(created));
    // Someone else (the recovery job after a lapsed lease) finished it first, with the same payment.
    const current = await charges.findById(db, charge.id);
    if (current?.creation_state === 'created') return ok(toView(current));
    logger.error({ chargeId: charge.id, state: current?.creation_state }, 'charge creation lost its lease');
    return err({ code: 'provider_unavailable' });
  }

  /** What the charge records of its customer: the named customer's details, or the inline block's. */
  async function customerOf(
    owner: ChargeOwner,
    input: ChargeCreate,
  ): Promise<Result<ChargeCustomer, ChargeError>> {
    if (input.customerId === undefined) {
      return ok({
        id: null,
        name: input.customer?.name ?? null,
        email: input.customer?.email ?? null,
        phone: input.customer?.phone ?? null,
        reference: input.customer?.reference ?? null,
        idNumberSealed: input.customer?.idNumber === undefined ? null : box.seal(input.customer.idNumber),
      });
    }
    const named = await deps.customers.detailsForCharge(db, owner, input.customerId);
    if (!named) {
      return err({
        code: 'invalid_input',
        issues: [{ path: 'customerId', in: 'body', code: 'invalid_value', message: 'no such customer' }],
      });
    }
    return ok(named);
  }

  return {
    async create(owner, input, options) {
      const { idempotencyKey, features } = options;
      if (input.customerId !== undefined && !(features ?? []).includes('customers'))
        return err({ code: 'customers_disabled' });
      const issues = checkInput(input, owner.environment);
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
      const customer = await customerOf(owner, input);
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
        if (inserted.value) return finishCreation(inserted.value, acquirer, options.outcome);
        // A `creating` or `created` charge holds the key (idempotencyKey is set: without one nothing
        // conflicts).
        const holder = await charges.findByIdempotencyKey(db, owner, idempotencyKey ?? '');
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
          if (holder.creation_state === 'created') return ok(toView(holder));
          const leased = await takeLease(db, holder.id, now, deps.creationLeaseMs);
          if (!leased) return err({ code: 'creation_in_progress' });
          return finishCreation(leased, acquirer, options.outcome);
        }
        // Forgotten after the idempotency window: the old charge lets go of it as the new one takes it.
        releaseBefore = rememberedSince;
      }
      return err({ code: 'creation_in_progress' });
    },

    async get(owner, id) {
      const row = await charges.findVisible(db, owner, id);
      return row ? ok(toView(row)) : err({ code: 'not_found' });
    },

    async list(owner, { limit, cursor, customerId }) {
      const pages = deps.cursors.for({
        list: 'charges',
        organizationId: owner.organizationId,
        environment: owner.environment,
        // Unfiltered cursors stay as they were issued before the filter existed.
        ...(customerId !== undefined ? { filter: JSON.stringify({ customerId }) } : {}),
      });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after && !after.ok) return after;
      const rows = await charges.listVisible(readDb, owner, { customerId }, after?.value, limit + 1);
      const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: page.data.map(toView), nextCursor: page.nextCursor });
    },

    async search(owner, { limit, cursor, filter, sort }) {
      const pages = deps.cursors.for({
        list: 'charges',
        organizationId: owner.organizationId,
        environment: owner.environment,
        filter: JSON.stringify({ search: filter, sort }),
      });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after && !after.ok) return after;
      const rows = await charges.searchVisible(readDb, owner, filter, sort, after?.value, limit + 1);
      const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: page.data.map(toView), nextCursor: page.nextCursor });
    },

    async details(owner, id) {
      const row = await charges.findVisible(db, owner, id);
      if (!row) return err({ code: 'not_found' });
      const [notifications, attempts] = await Promise.all([
        charges.notificationsOf(db, row.id),
        charges.cardAttemptsOf(db, row.id),
      ]);
      return ok({
        charge: toView(row),
        cardAttempts: row.card_attempts,
        attempts: attempts.map((attempt) => ({
          number: attempt.number,
          outcome: attempt.outcome,
          failureCode: attempt.failure_code,
          card: attempt.card_last4 === null ? null : { brand: attempt.card_brand, last4: attempt.card_last4 },
          at: new Date(attempt.attempted_at).toISOString(),
        })),
        finalizedAt: row.finalized_at?.toISOString() ?? null,
        notifications: notifications.map((n) => ({
          id: n.id,
          type: n.type,
          outcome: n.outcome,
          receivedAt: new Date(n.received_at).toISOString(),
          paymentStatus: n.payment_status,
          card:
            n.card_brand !== null && n.card_last4 !== null && /^[0-9]{4}$/.test(n.card_last4)
              ? { brand: n.card_brand, last4: n.card_last4 }
              : null,
          refundAmount: n.refund_amount,
        })),
      });
    },

    async pageCreatedIn(owner, window, after, limit) {
      return (await charges.pageCreatedIn(readDb, owner, window, after, limit)).map(toView);
    },

    async searchAcrossOrganizations(match, limit) {
      return (await charges.searchAcrossOrganizations(db, match, limit)).map((row) => ({
        organizationId: row.organization_id,
        environment: row.environment,
        charge: toView(row),
      }));
    },

    async recoverInterruptedCreations(limit = 50) {
      const now = clock.now();
      const outcome = { finished: 0, abandoned: 0, deferred: 0 };
      // Old enough that any request of the same creation is over (its lease and every acquirer call
      // it could still have in flight have lapsed), and not leased right now.
      const candidates = await charges.interruptedCreations(
        db,
        now,
        new Date(now.getTime() - deps.creationLeaseMs),
        limit,
      );
      for (const { id } of candidates) {
        const charge = await takeLease(db, id, now, deps.creationLeaseMs);
        if (!charge) continue;
        const acquirer = deps.acquirerFor(charge.environment);
        let payment: AcquirerPayment | undefined;
        try {
          if (!acquirer) throw new AcquirerUnavailableError('no acquirer configured', 0);
          const payments = await acquirer.findPayments(charge.id);
          payment = payments.find((candidate) => candidate.reference === charge.id);
          if (payment) assertPaymentMatches(charge, payment);
        } catch (error) {
          await charges.releaseLease(db, charge.id, clock.now());
          outcome.deferred++;
          logger.warn(
            { err: error, chargeId: charge.id },
            'charge recovery deferred: the acquirer could not say',
          );
          continue;
        }
        if (payment) {
          await markCreated(db, charge.id, payment, clock.now());
          outcome.finished++;
          logger.info(
            { chargeId: charge.id, paymentId: payment.id },
            'charge recovery finished an interrupted creation',
          );
        } else {
          await markAbandoned(db, charge.id, clock.now());
          outcome.abandoned++;
          logger.info(
            { chargeId: charge.id },
            'charge recovery abandoned a creation the acquirer never received',
          );
        }
      }
      return outcome;
    },
  };
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

/** An acquirer answer for another charge or amount is never recorded: it would pay the wrong thing. */
function assertPaymentMatches(charge: ChargeRow, payment: AcquirerPayment): void {
  if (
    typeof payment.id !== 'string' ||
    !payment.id.startsWith('pay_') ||
    payment.reference !== charge.id ||
    payment.amount !== charge.amount ||
    payment.currency !== charge.currency
  ) {
    throw new AcquirerUnavailableError(
      'the acquirer answered with a payment that does not match the charge',
      1,
    );
  }
}

export function chargeView(row: ChargeRow, checkoutUrl: string): ChargeView {
  if (row.provider_payment_id === null || row.provider_status === null) {
    throw new Error(`charge ${row.id} is not created yet`);
  }
  return {
    id: row.id,
    amount: row.amount,
    amountRefunded: row.refunded_amount,
    currency: row.currency,
    paymentMethod: row.payment_method,
    merchantReference: row.merchant_reference,
    status: row.status,
    paymentPageUrl: `${checkoutUrl}/c/${row.provider_payment_id}`,
    providerPaymentId: row.provider_payment_id,
    providerStatus: row.provider_status,
    customer: {
      name: row.customer_name,
      email: row.customer_email,
      phone: row.customer_phone,
      reference: row.customer_reference,
    },
    card:
      row.card_brand !== null && row.card_last4 !== null
        ? { brand: row.card_brand, last4: row.card_last4 }
        : null,
    failure:
      row.failure_code !== null
        ? { code: row.failure_code, message: row.failure_message ?? row.failure_code }
        : null,
    metadata: row.metadata,
    returnUrl: row.return_url,
    livemode: row.environment === 'live',
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The customer details a charge records (`id`: the named customer, or null for an inline block). */
type ChargeCustomer = Omit<CustomerDetails, 'id'> & { id: string | null };

/** Phase 1: the charge row, before the acquirer hears of it. */
function chargeRow(
  owner: ChargeOwner,
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
  owner: ChargeOwner,
  input: ChargeCreate,
  values: ChargeInsert,
  releaseBefore: Date | undefined,
): Promise<Result<ChargeRow | undefined, ChargeError>> {
  try {
    if (releaseBefore === undefined || values.idempotency_key == null)
      return ok(await charges.insertUnlessKeyHeld(db, values));
    const key = values.idempotency_key;
    return ok(
      await db.transaction().execute(async (trx: Trx) => {
        await charges.releaseForgottenKey(trx, owner, key, releaseBefore);
        return charges.insertUnlessKeyHeld(trx, values);
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error, 'charges_merchant_reference_key')) {
      const holder = await charges.findReferenceHolder(db, owner, input.merchantReference);
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
  owner: ChargeOwner,
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

async function takeLease(db: Kdb, id: string, now: Date, leaseMs: number): Promise<ChargeRow | undefined> {
  return charges.takeLease(db, id, now, new Date(now.getTime() + leaseMs));
}

/** What phase 2 writes: the acquirer's ids, and the lease let go. */
function createdPatch(payment: AcquirerPayment, now: Date) {
  return {
    creation_locked_until: null,
    provider_payment_id: payment.id,
    provider_status: payment.status,
    updated_at: now,
  };
}

async function markCreated(
  db: Kdb,
  id: string,
  payment: AcquirerPayment,
  now: Date,
): Promise<ChargeRow | undefined> {
  return charges.transitionCreation(db, id, ['creating'], 'created', createdPatch(payment, now));
}

async function markRejected(db: Kdb, id: string, error: AcquirerRejectedError, now: Date): Promise<void> {
  await charges.transitionCreation(db, id, ['creating'], 'rejected', {
    creation_locked_until: null,
    provider_error: JSON.stringify({
      code: error.providerCode,
      httpStatus: error.providerHttpStatus,
      message: error.sanitizedMessage,
    }),
    updated_at: now,
  });
}

async function markAbandoned(db: Kdb, id: string, now: Date): Promise<void> {
  await charges.transitionCreation(db, id, ['creating'], 'abandoned', {
    creation_locked_until: null,
    updated_at: now,
  });
}

/**
 * What the refunds module needs of a charge (it never touches the `charges` table itself): finding and
 * locking the charge a refund is for, and recording a refund on it in the refund's transaction.
 */
export interface ChargeRefunds {
  /** The owner's created charge, or undefined. */
  findVisible(owner: ChargeOwner, id: string): Promise<ChargeRow | undefined>;
  /** The same under the row lock, in the caller's transaction. */
  lockVisible(trx: Trx, owner: ChargeOwner, id: string): Promise<ChargeRow | undefined>;
  lock(trx: Trx, id: string): Promise<ChargeRow>;
  /** The acquirer's payment id of a charge (null before its creation finished). */
  providerPaymentId(id: string): Promise<string | null>;
  /** Adds a succeeded refund to the charge's refunded amount (and its provider status). */
  recordRefund(trx: Trx, charge: ChargeRow, amount: string, now: Date): Promise<ChargeRow>;
}

/** The merchant references of charges, by id, read in the caller's transaction (settlement items). */
export function chargeReferences(trx: Trx, chargeIds: readonly string[]): Promise<Map<string, string>> {
  return charges.referencesOf(trx, chargeIds);
}

export function createChargeRefunds(deps: { db: Kdb }): ChargeRefunds {
  return {
    findVisible: (owner, id) => charges.findVisible(deps.db, owner, id),
    lockVisible: (trx, owner, id) => charges.lockVisible(trx, owner, id),
    lock: (trx, id) => charges.lockById(trx, id),
    async providerPaymentId(id) {
      return (await charges.findById(deps.db, id))?.provider_payment_id ?? null;
    },
    async recordRefund(trx, charge, amount, now) {
      const refundedAmount = BigInt(charge.refunded_amount) + BigInt(amount);
      return charges.update(trx, charge.id, {
        refunded_amount: refundedAmount.toString(),
        provider_status: refundedAmount === BigInt(charge.amount) ? 'refunded' : 'partially_refunded',
        updated_at: now,
      });
    },
  };
}
