import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { CreatedWindow, Cursor } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import { createCharge, type ChargeCreateOptions } from './create.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import {
  listCharges,
  pageChargesCreatedIn,
  searchCharges,
  searchChargesAcrossOrganizations,
} from './list.js';
import type { ChargeRow } from './model.js';
import { recoverInterruptedCreations } from './recovery.js';
import * as charges from './repository/charges.js';
import type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository/lists.js';
import { chargeDetails, getCharge, type ChargeDetails } from './retrieve.js';
import type { ChargeCreate, ChargeListQuery, ChargeView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

export type { ChargeRow } from './model.js';
export type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository/lists.js';

/** One page of a list of charges, and the cursor of the next (null on the last). */
export interface ChargePage {
  data: ChargeView[];
  nextCursor: string | null;
}

/** What a use case of the service answers: its value, or the refusal. */
type ChargeAnswer<T> = Promise<Result<T, ChargeError>>;

export interface ChargeService {
  create(owner: Owner, input: ChargeCreate, options: ChargeCreateOptions): ChargeAnswer<ChargeView>;
  get(owner: Owner, id: string): ChargeAnswer<ChargeView>;
  list(owner: Owner, query: ChargeListQuery): ChargeAnswer<ChargePage>;
  /**
   * The dashboard's Payments list: the owner's charges matching the filters, in one of the sorts, cursor
   * paged. A cursor is bound to its filters and sort: another list's is refused.
   */
  search(
    owner: Owner,
    query: { limit: number; cursor?: string; filter: ChargeSearch; sort: ChargeSort },
  ): ChargeAnswer<ChargePage>;
  /** The charge page: the charge and what its timeline needs (attempts, notifications, when it ended). */
  details(owner: Owner, id: string): ChargeAnswer<ChargeDetails>;
  /**
   * One page of an export: the created charges made in `window`, oldest first, after the (createdAt, id)
   * of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: Owner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<ChargeView[]>;
  /**
   * The operator console's payment search: created charges of every organization and
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

/** A use case as the service's method: the deps bound as its first argument. */
function bound<Deps, Args extends unknown[], Out>(
  deps: Deps,
  useCase: (deps: Deps, ...args: Args) => Out,
): (...args: Args) => Out {
  return (...args) => useCase(deps, ...args);
}

export function createChargeService(deps: ChargeServiceDeps): ChargeService {
  return {
    create: bound(deps, createCharge),
    get: bound(deps, getCharge),
    list: bound(deps, listCharges),
    search: bound(deps, searchCharges),
    details: bound(deps, chargeDetails),
    pageCreatedIn: bound(deps, pageChargesCreatedIn),
    searchAcrossOrganizations: bound(deps, searchChargesAcrossOrganizations),
    recoverInterruptedCreations: bound(deps, recoverInterruptedCreations),
  };
}

/**
 * What the refunds module needs of a charge (it never touches the `charges` table itself): finding and
 * locking the charge a refund is for, and recording a refund on it in the refund's transaction.
 */
export interface ChargeRefunds {
  /** The owner's created charge, or undefined. */
  findVisible(owner: Owner, id: string): Promise<ChargeRow | undefined>;
  /** The same under the row lock, in the caller's transaction. */
  lockVisible(trx: Trx, owner: Owner, id: string): Promise<ChargeRow | undefined>;
  lock(trx: Trx, id: string): Promise<ChargeRow>;
  /** The acquirer's payment id of a charge (null before its creation finished). */
  providerPaymentId(id: string): Promise<string | null>;
  /** Adds a succeeded refund to the charge's refunded amount (and its provider status). */
  recordRefund(trx: Trx, charge: ChargeRow, amount: string, now: Date): Promise<ChargeRow>;
}

/** What the disputes module reads of charges: the disputed charge of an owner, and charges by id. */
export interface ChargeDisputes {
  findVisible(owner: Owner, id: string): Promise<ChargeRow | undefined>;
  lockVisible(trx: Trx, owner: Owner, id: string): Promise<ChargeRow | undefined>;
  /** Charges by id, whoever owns them: the caller's ids come from the owner's own disputes. */
  byIds(ids: readonly string[]): Promise<Map<string, ChargeRow>>;
}

export function createChargeDisputes(deps: { db: Kdb }): ChargeDisputes {
  return {
    findVisible: (owner, id) => charges.findVisible(deps.db, owner, id),
    lockVisible: (trx, owner, id) => charges.lockVisible(trx, owner, id),
    async byIds(ids) {
      if (ids.length === 0) return new Map();
      const rows = await deps.db
        .selectFrom('charges')
        .selectAll()
        .where('id', 'in', [...new Set(ids)])
        .execute();
      return new Map(rows.map((row) => [row.id, row]));
    },
  };
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
