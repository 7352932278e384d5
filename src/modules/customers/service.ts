import type { Kdb } from '../../db/database.js';
import { cursorPage } from '../../shared/cursor-page.js';
import { metadataIssues } from '../../http/input.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { CustomerError } from './errors.js';
import * as customers from './repository.js';
import {
  type CustomerCreate,
  type CustomerListQuery,
  type CustomerUpdate,
  type CustomerView,
} from './schemas.js';
import type { Owner } from '../../shared/owner.js';

/** What a charge copies of its customer when it is created (charges, `customerId`). */
export interface CustomerDetails {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  reference: string | null;
  /** Sealed by the secret box, copied as it is. */
  idNumberSealed: string | null;
}

export interface CustomerService {
  create(owner: Owner, input: CustomerCreate): Promise<Result<CustomerView, CustomerError>>;
  get(owner: Owner, id: string): Promise<Result<CustomerView, CustomerError>>;
  update(owner: Owner, id: string, input: CustomerUpdate): Promise<Result<CustomerView, CustomerError>>;
  /** Erases the customer's details and hides it; its charges keep their copy and its id. */
  remove(
    owner: Owner,
    id: string,
  ): Promise<Result<{ id: string; object: 'customer'; deleted: true }, CustomerError>>;
  list(
    owner: Owner,
    query: CustomerListQuery,
  ): Promise<Result<{ data: CustomerView[]; nextCursor: string | null }, CustomerError>>;
  /** The details a new charge copies, in the caller's transaction or not; undefined: no such customer. */
  detailsForCharge(db: Kdb, owner: Owner, id: string): Promise<CustomerDetails | undefined>;
}

/**
 * Customers (spec section 1, flag `customers`): a merchant's record of who pays, which a
 * charge can name instead of an inline customer block. The ID number is sealed as a charge's is.
 */
export function createCustomerService(deps: {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  cursors: CursorCodec;
}): CustomerService {
  const { db, clock, box } = deps;
  const scope = (owner: Owner) => ({
    organizationId: owner.organizationId,
    environment: owner.environment,
  });

  return {
    async create(owner, input) {
      const issues = metadataIssues(input.metadata);
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
      const now = clock.now();
      const row = await customers.insert(db, {
        id: newId('cus', now),
        organization_id: owner.organizationId,
        environment: owner.environment,
        name: input.name ?? null,
        email: input.email ?? null,
        phone: input.phone ?? null,
        reference: input.reference ?? null,
        id_number_enc: input.idNumber == null ? null : box.seal(input.idNumber),
        metadata: JSON.stringify(input.metadata ?? {}),
        created_by: owner.keyId === undefined ? null : `key:${owner.keyId}`,
        created_at: now,
        updated_at: now,
      });
      return ok(customerView(row));
    },

    async get(owner, id) {
      const row = await customers.findVisible(db, scope(owner), id);
      return row ? ok(customerView(row)) : err({ code: 'customer_not_found' });
    },

    async update(owner, id, input) {
      const issues = metadataIssues(input.metadata);
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
      const changes: Parameters<typeof customers.updateVisible>[3] = { updated_at: clock.now() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.email !== undefined) changes.email = input.email;
      if (input.phone !== undefined) changes.phone = input.phone;
      if (input.reference !== undefined) changes.reference = input.reference;
      if (input.idNumber !== undefined)
        changes.id_number_enc = input.idNumber === null ? null : box.seal(input.idNumber);
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
      const row = await customers.updateVisible(db, scope(owner), id, changes);
      return row ? ok(customerView(row)) : err({ code: 'customer_not_found' });
    },

    async remove(owner, id) {
      const row = await customers.erase(db, scope(owner), id, clock.now());
      return row
        ? ok({ id: row.id, object: 'customer' as const, deleted: true as const })
        : err({ code: 'customer_not_found' });
    },

    async list(owner, query) {
      const filter = { email: query.email?.toLowerCase() };
      return cursorPage(deps.cursors, {
        list: 'customers',
        owner,
        filter: JSON.stringify(filter),
        query,
        rows: (after) => customers.listVisible(db, scope(owner), filter, after, query.limit + 1),
        view: (rows) => rows.map(customerView),
      });
    },

    async detailsForCharge(on, owner, id) {
      const row = await customers.findVisible(on, scope(owner), id);
      if (!row) return undefined;
      return {
        id: row.id,
        name: row.name,
        email: row.email,
        phone: row.phone,
        reference: row.reference,
        idNumberSealed: row.id_number_enc,
      };
    },
  };
}

export function customerView(row: customers.CustomerRow): CustomerView {
  return {
    id: row.id,
    object: 'customer',
    name: row.name,
    email: row.email,
    phone: row.phone,
    reference: row.reference,
    hasIdNumber: row.id_number_enc !== null,
    metadata: row.metadata,
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
