import type { Kdb, Trx } from '../../db/database.js';
import type { Updateable } from 'kysely';
import type { FeatureFlag, KycStatus, OrganizationsTable } from '../../db/schema.js';
import { keysetPage } from '../../db/keyset.js';
import { toPage, type CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import { entryAbout } from '../audit/service.js';
import type { OrganizationError } from './errors.js';
import { findOrganization, listFeeSchedule, toOrganization, upsertFee } from './repository.js';
import type { Actor, FeeScheduleEntry, Organization } from './types.js';
import type { UnderwritingDeps } from './underwriting-types.js';

// Operations on approved merchants: KYC, fees, feature flags, rate limits, freezing, 3-D Secure.

export type OrganizationAdminDeps = Pick<UnderwritingDeps, 'db' | 'clock' | 'audit' | 'cursors'>;

export async function listOrganizations(
  deps: OrganizationAdminDeps,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<{ data: Organization[]; nextCursor: string | null }, CursorError>> {
  const pages = deps.cursors.for({ list: 'organizations' });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after?.ok === false) return after;
  const rows = await deps.db
    .selectFrom('organizations')
    .selectAll()
    .$call(keysetPage(after?.value, limit + 1))
    .execute();
  const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
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

/** The audit entry of a change to an organization's settings: what they were and what they are. */
function recordChange(
  deps: OrganizationAdminDeps,
  trx: Trx,
  change: { id: string; by: Actor; action: string; before: unknown; after: unknown },
): Promise<void> {
  const { id, by, action, before, after } = change;
  const target = { type: 'organization', id, organizationId: id };
  return deps.audit.record(trx, entryAbout(by, action, target, { before, after }));
}

/** One setting of an organization: its audit action, its columns' new values, what its entries show. */
interface Setting {
  action: string;
  /** The columns to set, from the organization as it was (locked) and the time of the change. */
  set: (before: Organization, now: Date) => Updateable<OrganizationsTable>;
  describe: (organization: Organization) => Record<string, unknown>;
  /** The operator's reason, kept in the entry's `after` beside the setting (it has no column). */
  reason?: string;
}

/** Locks the row, applies the change, audits before and after, in one transaction. */
export async function change(
  deps: OrganizationAdminDeps,
  id: string,
  by: Actor,
  setting: Setting,
): Promise<Result<Organization, OrganizationError>> {
  return deps.db.transaction().execute(async (trx) => {
    const found = await mustFind(trx, id, true);
    if (!found.ok) return found;
    const before = found.value;
    const now = deps.clock.now();
    await trx
      .updateTable('organizations')
      .set({ ...setting.set(before, now), updated_at: now })
      .where('id', '=', id)
      .execute();
    const after = (await findOrganization(trx, id)) as Organization;
    const { action, describe, reason } = setting;
    const described = reason === undefined ? describe(after) : { ...describe(after), reason };
    await recordChange(deps, trx, { id, by, action, before: describe(before), after: described });
    return ok(after);
  });
}

const describeFrozen = (o: Organization) => ({ frozen: o.frozen, frozenReason: o.frozenReason });

/** The settings `change` applies, from the operator's arguments. */
export const settings = {
  kycStatus: (status: KycStatus): Setting => ({
    action: 'organization.kyc_status_set',
    set: () => ({ kyc_status: status }),
    describe: (o) => ({ kycStatus: o.kycStatus }),
  }),
  featureFlag: (flag: FeatureFlag, enabled: boolean): Setting => ({
    action: enabled ? 'organization.flag_enabled' : 'organization.flag_disabled',
    set: (before) => {
      const flags = new Set(before.featureFlags);
      if (enabled) flags.add(flag);
      else flags.delete(flag);
      return { feature_flags: [...flags].sort() };
    },
    describe: (o) => ({ featureFlags: o.featureFlags }),
  }),
  rateLimits: (limits: { live: number | null; sandbox: number | null }): Setting => ({
    action: 'organization.rate_limits_set',
    set: () => ({ rate_limit_live: limits.live, rate_limit_sandbox: limits.sandbox }),
    describe: (o) => ({ rateLimits: o.rateLimits }),
  }),
  frozen: (reason: string): Setting => ({
    action: 'organization.frozen',
    // Frozen already: the first freeze's time and reason stay.
    set: (before, now) => (before.frozen ? {} : { frozen_at: now, frozen_reason: reason }),
    describe: describeFrozen,
  }),
  unfrozen: (): Setting => ({
    action: 'organization.unfrozen',
    set: () => ({ frozen_at: null, frozen_reason: null }),
    describe: describeFrozen,
  }),
  threeDSecure: (required: boolean, reason: string): Setting => ({
    action: required ? 'organization.three_d_secure_required' : 'organization.three_d_secure_not_required',
    set: () => ({ require_three_d_secure: required }),
    describe: (o) => ({ threeDSecureRequired: o.threeDSecureRequired }),
    reason,
  }),
};

export async function setFee(
  deps: OrganizationAdminDeps,
  id: string,
  fee: FeeScheduleEntry,
  by: Actor,
): Promise<Result<FeeScheduleEntry[], OrganizationError>> {
  const { db, clock } = deps;
  const set = await db.transaction().execute(async (trx) => {
    const found = await mustFind(trx, id, true);
    if (!found.ok) return found;
    const before = await listFeeSchedule(trx, id);
    await upsertFee(trx, id, fee.paymentMethod, fee, clock.now());
    const after = await listFeeSchedule(trx, id);
    await recordChange(deps, trx, {
      id,
      by,
      action: 'organization.fee_set',
      before: feesForAudit(before),
      after: feesForAudit(after),
    });
    return ok();
  });
  return set.ok ? ok(await listFeeSchedule(db, id)) : set;
}

function feesForAudit(fees: FeeScheduleEntry[]) {
  return Object.fromEntries(
    fees.map((f) => [f.paymentMethod, { basisPoints: f.basisPoints, fixedMinor: f.fixedMinor.toString() }]),
  );
}
