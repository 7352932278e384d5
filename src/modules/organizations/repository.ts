import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { LogoContentType, OrganizationsTable, PaymentMethod } from '../../db/schema.js';
import type { FeeScheduleEntry, Organization } from './types.js';

export function toOrganization(row: Selectable<OrganizationsTable>): Organization {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    brandColor: row.brand_color,
    applicationId: row.application_id,
    contactEmail: row.contact_email,
    kycStatus: row.kyc_status,
    featureFlags: [...row.feature_flags].sort(),
    rateLimits: { live: row.rate_limit_live, sandbox: row.rate_limit_sandbox },
    frozen: row.frozen_at !== null,
    frozenAt: row.frozen_at,
    frozenReason: row.frozen_reason,
    threeDSecureRequired: row.require_three_d_secure,
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

/** What the checkout shows of an organization: its names, colour and the hash of its logo. */
export async function findBrandingRow(
  db: Kdb,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
) {
  let query = db
    .selectFrom('organizations')
    .leftJoin('organization_logos', 'organization_logos.organization_id', 'organizations.id')
    .select([
      'organizations.id',
      'organizations.display_name',
      'organizations.brand_color',
      'organization_logos.sha256',
      'organization_logos.content_type',
    ])
    .where('organizations.id', '=', organizationId);
  if (options.forUpdate) query = query.forUpdate('organizations');
  return query.executeTakeFirst();
}

export async function setBrandingFields(
  db: Kdb,
  organizationId: string,
  fields: { displayName: string; brandColor: string | null; now: Date },
) {
  await db
    .updateTable('organizations')
    .set({ display_name: fields.displayName, brand_color: fields.brandColor, updated_at: fields.now })
    .where('id', '=', organizationId)
    .execute();
}

export async function putLogo(
  db: Kdb,
  logo: {
    organizationId: string;
    sha256: string;
    contentType: LogoContentType;
    bytes: Uint8Array;
    now: Date;
  },
) {
  const values = {
    sha256: logo.sha256,
    content_type: logo.contentType,
    bytes: logo.bytes,
    created_at: logo.now,
  };
  await db
    .insertInto('organization_logos')
    .values({ organization_id: logo.organizationId, ...values })
    .onConflict((oc) => oc.column('organization_id').doUpdateSet(values))
    .execute();
}

export async function deleteLogo(db: Kdb, organizationId: string) {
  await db.deleteFrom('organization_logos').where('organization_id', '=', organizationId).execute();
}

/** A logo by its content hash (any organization's: the same bytes are the same logo). */
export async function findLogoByHash(db: Kdb, sha256: string) {
  return db
    .selectFrom('organization_logos')
    .select(['content_type', 'bytes'])
    .where('sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
}

/**
 * The frozen ones of these organizations, their rows share-locked (in id order) until the end of the
 * caller's transaction: a freeze, which locks the row to change it, waits for the caller, and a caller
 * after a freeze sees it.
 */
export async function lockFrozen(db: Kdb, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('organizations')
    .select(['id', 'frozen_at'])
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forShare()
    .execute();
  return new Set(rows.filter((row) => row.frozen_at !== null).map((row) => row.id));
}

/** The names of these organizations, by id (unknown ids left out). */
export async function organizationNames(db: Kdb, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('organizations')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
