import type { Kdb, Trx } from '../../db/database.js';
import type { FeatureFlag, KycStatus } from '../../db/schema.js';
import { olderThan, toPage, type CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { OrganizationError } from './errors.js';
import { findOrganization, listFeeSchedule, toOrganization, upsertFee } from './repository.js';
import type { Actor, FeeScheduleEntry, Organization } from './types.js';
import type { UnderwritingDeps } from './underwriting-types.js';

// Operations on approved merchants: KYC, fees, feature flags, rate limits, freezing.

export type OrganizationAdminDeps = Pick<UnderwritingDeps, 'db' | 'clock' | 'audit' | 'cursors'>;

export async function listOrganizations(
  deps: OrganizationAdminDeps,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<{ data: Organization[]; nextCursor: string | null }, CursorError>> {
  const { db } = deps;
  let query = db
    .selectFrom('organizations')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1);
  const pages = deps.cursors.for({ list: 'organizations' });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after?.ok === false) return after;
  if (after) query = query.where(olderThan(after.value));
  const page = toPage(await query.execute(), limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: page.data.map(toOrganization), nextCursor: page.nextCursor });
}

export async function mustFind(
  db: Kdb,
  id: string,
  forUpdate = false,
): Promise<Result<Organization, OrganizationError>> {
  const organization = await findOrganization(db, id, { forUpdate });
  return organization ? ok(organization) : err({ code: 'organization_not_found', id });
}

/** Locks the row, applies the change, audits before and after, in one transaction. */
async function change(
  deps: OrganizationAdminDeps,
  id: string,
  by: Actor,
  action: string,
  apply: (trx: Trx, before: Organization, now: Date) => Promise<void>,
  describe: (organization: Organization) => unknown,
): Promise<Result<Organization, OrganizationError>> {
  const { db, clock, audit } = deps;
  return db.transaction().execute(async (trx) => {
    const found = await mustFind(trx, id, true);
    if (!found.ok) return found;
    const before = found.value;
    const now = clock.now();
    await apply(trx, before, now);
    await trx.updateTable('organizations').set({ updated_at: now }).where('id', '=', id).execute();
    const after = (await findOrganization(trx, id)) as Organization;
    await audit.record(trx, {
      ...by,
      action,
      targetType: 'organization',
      targetId: id,
      organizationId: id,
      before: describe(before),
      after: describe(after),
    });
    return ok(after);
  });
}

export function setKycStatus(
  deps: OrganizationAdminDeps,
  id: string,
  status: KycStatus,
  by: Actor,
): Promise<Result<Organization, OrganizationError>> {
  return change(
    deps,
    id,
    by,
    'organization.kyc_status_set',
    async (trx) => {
      await trx.updateTable('organizations').set({ kyc_status: status }).where('id', '=', id).execute();
    },
    (o) => ({ kycStatus: o.kycStatus }),
  );
}

export async function setFee(
  deps: OrganizationAdminDeps,
  id: string,
  fee: FeeScheduleEntry,
  by: Actor,
): Promise<Result<FeeScheduleEntry[], OrganizationError>> {
  const { db, clock, audit } = deps;
  const set = await db.transaction().execute(async (trx) => {
    const found = await mustFind(trx, id, true);
    if (!found.ok) return found;
    const before = await listFeeSchedule(trx, id);
    await upsertFee(trx, id, fee.paymentMethod, fee, clock.now());
    const after = await listFeeSchedule(trx, id);
    await audit.record(trx, {
      ...by,
      action: 'organization.fee_set',
      targetType: 'organization',
      targetId: id,
      organizationId: id,
      before: feesForAudit(before),
      after: feesForAudit(after),
    });
    return ok();
  });
  return set.ok ? ok(await listFeeSchedule(db, id)) : set;
}

export function setFeatureFlag(
  deps: OrganizationAdminDeps,
  id: string,
  flag: FeatureFlag,
  enabled: boolean,
  by: Actor,
): Promise<Result<Organization, OrganizationError>> {
  return change(
    deps,
    id,
    by,
    enabled ? 'organization.flag_enabled' : 'organization.flag_disabled',
    async (trx, before) => {
      const flags = new Set(before.featureFlags);
      if (enabled) flags.add(flag);
      else flags.delete(flag);
      await trx
        .updateTable('organizations')
        .set({ feature_flags: [...flags].sort() })
        .where('id', '=', id)
        .execute();
    },
    (o) => ({ featureFlags: o.featureFlags }),
  );
}

export function setRateLimits(
  deps: OrganizationAdminDeps,
  id: string,
  limits: { live: number | null; sandbox: number | null },
  by: Actor,
): Promise<Result<Organization, OrganizationError>> {
  return change(
    deps,
    id,
    by,
    'organization.rate_limits_set',
    async (trx) => {
      await trx
        .updateTable('organizations')
        .set({ rate_limit_live: limits.live, rate_limit_sandbox: limits.sandbox })
        .where('id', '=', id)
        .execute();
    },
    (o) => ({ rateLimits: o.rateLimits }),
  );
}

export function freeze(
  deps: OrganizationAdminDeps,
  id: string,
  reason: string,
  by: Actor,
): Promise<Result<Organization, OrganizationError>> {
  return change(
    deps,
    id,
    by,
    'organization.frozen',
    async (trx, before, now) => {
      if (before.frozen) return;
      await trx
        .updateTable('organizations')
        .set({ frozen_at: now, frozen_reason: reason })
        .where('id', '=', id)
        .execute();
    },
    (o) => ({ frozen: o.frozen, frozenReason: o.frozenReason }),
  );
}

export function unfreeze(
  deps: OrganizationAdminDeps,
  id: string,
  by: Actor,
): Promise<Result<Organization, OrganizationError>> {
  return change(
    deps,
    id,
    by,
    'organization.unfrozen',
    async (trx) => {
      await trx
        .updateTable('organizations')
        .set({ frozen_at: null, frozen_reason: null })
        .where('id', '=', id)
        .execute();
    },
    (o) => ({ frozen: o.frozen, frozenReason: o.frozenReason }),
  );
}

function feesForAudit(fees: FeeScheduleEntry[]) {
  return Object.fromEntries(
    fees.map((f) => [f.paymentMethod, { basisPoints: f.basisPoints, fixedMinor: f.fixedMinor.toString() }]),
  );
}
