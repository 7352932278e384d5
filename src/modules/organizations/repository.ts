import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { OrganizationsTable, PaymentMethod } from '../../db/schema.js';
import type { FeeScheduleEntry, Organization } from './types.js';

export function toOrganization(row: Selectable<OrganizationsTable>): Organization {
  return {
    id: row.id,
    name: row.name,
    applicationId: row.application_id,
    contactEmail: row.contact_email,
    kycStatus: row.kyc_status,
    featureFlags: [...row.feature_flags].sort(),
    rateLimits: { live: row.rate_limit_live, sandbox: row.rate_limit_sandbox },
    frozen: row.frozen_at !== null,
    frozenAt: row.frozen_at,
    frozenReason: row.frozen_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findOrganization(db: Kdb, id: string, options: { forUpdate?: boolean } = {}) {
  let query = db.selectFrom('organizations').selectAll().where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toOrganization(row) : undefined;
}

export async function listFeeSchedule(db: Kdb, organizationId: string): Promise<FeeScheduleEntry[]> {
  const rows = await db
    .selectFrom('fee_schedules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('payment_method')
    .execute();
  return rows.map((row) => ({
    paymentMethod: row.payment_method,
    basisPoints: row.basis_points,
    fixedMinor: BigInt(row.fixed_minor),
  }));
}

export async function upsertFee(
  db: Kdb,
  organizationId: string,
  paymentMethod: PaymentMethod,
  fee: { basisPoints: number; fixedMinor: bigint },
  now: Date,
) {
  await db
    .insertInto('fee_schedules')
    .values({
      organization_id: organizationId,
      payment_method: paymentMethod,
      basis_points: fee.basisPoints,
      fixed_minor: fee.fixedMinor.toString(),
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'payment_method']).doUpdateSet({
        basis_points: fee.basisPoints,
        fixed_minor: fee.fixedMinor.toString(),
        updated_at: now,
      }),
    )
    .execute();
}
