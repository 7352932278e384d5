import { sql } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { PaymentMethod } from '../../../db/schema.js';
import {
  exportPageOf,
  keysetPage,
  newerThan,
  olderThan,
  type Cursor,
  type ExportPageRead,
} from '../../../db/keyset.js';
import type { ChargeRow, ChargeStatus } from '../model.js';
import type { Owner } from '../../../shared/owner.js';
import { visibleCharges } from './charges.js';

export async function listVisible(
  db: Kdb,
  owner: Owner,
  filter: { customerId?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeRow[]> {
  let query = visibleCharges(db, owner);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  return query.$call(keysetPage(after, limit)).execute();
}

/** What the operator console's payment search matches on. */
export type OperatorChargeMatch =
  | { kind: 'id'; value: string }
  | { kind: 'reference'; value: string }
  | { kind: 'last4'; value: string }
  | { kind: 'email'; value: string };

/**
 * Created charges of every organization and environment matching one exact key, newest first, at most
 * `limit`: the id by its primary key, the others by their search indexes (migration 0022).
 */
export async function searchAcrossOrganizations(
  db: Kdb,
  match: OperatorChargeMatch,
  limit: number,
): Promise<ChargeRow[]> {
  let query = db.selectFrom('charges').selectAll().where('creation_state', '=', 'created');
  switch (match.kind) {
    case 'id':
      query = query.where('id', '=', match.value);
      break;
    case 'reference':
      query = query.where('merchant_reference', '=', match.value);
      break;
    case 'last4':
      query = query.where('card_last4', 'is not', null).where('card_last4', '=', match.value);
      break;
    case 'email':
      query = query
        .where('customer_email', 'is not', null)
        .where(sql`lower(customer_email)`, '=', match.value.toLowerCase());
      break;
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** How the dashboard's Payments list orders charges; each has an index (migration 0020). */
export type ChargeSort = 'newest' | 'oldest' | 'amount_desc' | 'amount_asc';

/** The filters of the dashboard's Payments list; every one optional, all of them together. */
export interface ChargeSearch {
  status?: ChargeStatus;
  method?: PaymentMethod;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
  /** Minor units, decimal strings, inclusive. */
  amountMin?: string;
  amountMax?: string;
  /** The merchant reference, exactly. */
  reference?: string;
  /**
   * By what succeeded refunds gave back (the status stays `succeeded`): some of it or all (`any`), all
   * (`full`), some but not all (`partial`), or nothing (`none`).
   */
  refunded?: 'any' | 'full' | 'partial' | 'none';
  /** The customer's e-mail address, exactly but for case. */
  email?: string;
  /**
   * The list's search box: one charge id, the card's last four digits, a customer's e-mail (any case) or
   * a merchant reference, each exactly.
   */
  search?: { kind: 'id' | 'last4' | 'email' | 'reference'; value: string };
}

/**
 * A page of the owner's created charges matching `filter` in `sort` order, after the row `after` (the
 * last of the previous page). Amount orders continue from the cursor row's own amount, read by its id:
 * an amount never changes, so the cursor needs nothing more than the list's usual (createdAt, id).
 */
export async function searchVisible(
  db: Kdb,
  owner: Owner,
  filter: ChargeSearch,
  sort: ChargeSort,
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeRow[]> {
  let query = visibleCharges(db, owner);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.method !== undefined) query = query.where('payment_method', '=', filter.method);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  if (filter.amountMin !== undefined) query = query.where('amount', '>=', filter.amountMin);
  if (filter.amountMax !== undefined) query = query.where('amount', '<=', filter.amountMax);
  if (filter.reference !== undefined) query = query.where('merchant_reference', '=', filter.reference);
  if (filter.refunded === 'any') query = query.where('refunded_amount', '>', '0');
  else if (filter.refunded === 'none') query = query.where('refunded_amount', '=', '0');
  else if (filter.refunded === 'full')
    query = query.where('refunded_amount', '>', '0').whereRef('refunded_amount', '=', 'amount');
  else if (filter.refunded === 'partial')
    query = query.where('refunded_amount', '>', '0').whereRef('refunded_amount', '<', 'amount');
  if (filter.search !== undefined) {
    const { kind, value } = filter.search;
    if (kind === 'id') query = query.where('id', '=', value);
    else if (kind === 'reference') query = query.where('merchant_reference', '=', value);
    else if (kind === 'last4')
      query = query.where('card_last4', 'is not', null).where('card_last4', '=', value);
    else
      query = query
        .where('customer_email', 'is not', null)
        .where(sql<string>`lower(customer_email)`, '=', value.toLowerCase());
  }
  if (filter.email !== undefined) {
    // Spelled as charges_customer_email_idx is (migration 0020), its predicate too.
    query = query
      .where('customer_email', 'is not', null)
      .where(sql<string>`lower(customer_email)`, '=', filter.email.toLowerCase());
  }
  if (after) {
    const amountOf = sql`(select c.amount from charges c where c.id = ${after.id})`;
    query = query.where(
      sort === 'newest'
        ? olderThan(after)
        : sort === 'oldest'
          ? newerThan(after)
          : sort === 'amount_desc'
            ? sql<boolean>`(amount, id) < (${amountOf}, ${after.id})`
            : sql<boolean>`(amount, id) > (${amountOf}, ${after.id})`,
    );
  }
  const direction = sort === 'newest' || sort === 'amount_desc' ? 'desc' : 'asc';
  const first = sort === 'newest' || sort === 'oldest' ? 'created_at' : 'amount';
  return query.orderBy(first, direction).orderBy('id', direction).limit(limit).execute();
}

/**
 * One page of an export: the owner's created charges made in `window`, oldest first (`created_at, id`),
 * after `after`; the `charges_list_idx` index serves it read backwards.
 */
export const pageCreatedIn: ExportPageRead<ChargeRow> = exportPageOf(visibleCharges);
