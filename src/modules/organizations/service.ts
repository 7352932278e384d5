import type { Kdb, Trx } from '../../db/database.js';
import type { ApplicationReview } from '../applications/service.js';
import type { ApplicationRow } from '../../db/schema.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import { newId } from '../../shared/ids.js';
import { olderThan, toPage, type CursorCodec, type CursorError } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import { issueApiKey, type IssuedApiKey } from '../api-keys/service.js';
import type { Mailer } from '../email/service.js';
import { applicationApprovedEmail, applicationRejectedEmail } from '../email/templates.js';
import type { Urls } from '../../shared/urls.js';
import type { UserService } from '../users/service.js';
import type { OrganizationError } from './errors.js';
import { findOrganization, listFeeSchedule, lockFrozen, toOrganization, upsertFee } from './repository.js';
import {
  DEFAULT_FEES,
  PAYMENT_METHODS,
  type FeeScheduleEntry,
  type Organization,
  type OrganizationDirectory,
} from './types.js';

/**
 * Which of these organizations an operator has frozen, read in the caller's transaction under a share
 * lock on their rows: the settlement batch holds a frozen organization's automatic payout
 * (docs/settlement.md), and a freeze waits for a payout phase under way to end.
 */
export function frozenOrganizations(trx: Trx, ids: readonly string[]): Promise<Set<string>> {
  return lockFrozen(trx, ids);
}

/** Who acts and from where: every change lands in the audit log with it. */
export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

export interface ApprovalResult {
  organization: Organization;
  ownerUserId: string;
  ownerEmail: string;
  sandboxKey: IssuedApiKey;
  activationUrl: string;
  emailId: string;
}

export interface ApplicationPage {
  data: ApplicationRow[];
  nextCursor: string | null;
}

export interface UnderwritingService {
  listApplications(filter: {
    status?: ApplicationRow['status'];
    limit: number;
    cursor?: string;
  }): Promise<Result<ApplicationPage, CursorError>>;
  getApplication(id: string): Promise<Result<ApplicationRow, OrganizationError>>;
  startReview(id: string, by: Actor): Promise<Result<ApplicationRow, OrganizationError>>;
  approve(id: string, by: Actor): Promise<Result<ApprovalResult, OrganizationError>>;
  reject(id: string, reason: string, by: Actor): Promise<Result<ApplicationRow, OrganizationError>>;
}

export interface OrganizationAdminService extends OrganizationDirectory {
  list(options: {
    limit: number;
    cursor?: string;
  }): Promise<Result<{ data: Organization[]; nextCursor: string | null }, CursorError>>;
  get(id: string): Promise<Result<Organization, OrganizationError>>;
  feeSchedule(id: string): Promise<FeeScheduleEntry[]>;
  setKycStatus(id: string, status: KycStatus, by: Actor): Promise<Result<Organization, OrganizationError>>;
  setFee(
    id: string,
    fee: FeeScheduleEntry,
    by: Actor,
  ): Promise<Result<FeeScheduleEntry[], OrganizationError>>;
  setFeatureFlag(
    id: string,
    flag: FeatureFlag,
    enabled: boolean,
    by: Actor,
  ): Promise<Result<Organization, OrganizationError>>;
  setRateLimits(
    id: string,
    limits: { live: number | null; sandbox: number | null },
    by: Actor,
  ): Promise<Result<Organization, OrganizationError>>;
  freeze(id: string, reason: string, by: Actor): Promise<Result<Organization, OrganizationError>>;
  unfreeze(id: string, by: Actor): Promise<Result<Organization, OrganizationError>>;
}

interface Deps {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  mailer: Mailer;
  urls: Urls;
  cursors: CursorCodec;
  users: Pick<UserService, 'createOwnerUser' | 'createActivation' | 'hasAccount'>;
  /** The applications module's review interface: underwriting never queries its table. */
  applications: ApplicationReview;
}

/** A decision taken under the application's row lock cannot find it elsewhere: that would be a bug. */
async function decided(pending: Promise<ApplicationRow | undefined>, id: string): Promise<ApplicationRow> {
  const row = await pending;
  if (!row) throw new Error(`application ${id} left its state under its row lock`);
  return row;
}

/** Application review: NEW -> IN_REVIEW -> APPROVED | REJECTED (product decision 4). */
export function createUnderwritingService(deps: Deps): UnderwritingService {
  const { db, clock, audit, mailer } = deps;

  /** The application, locked, while it is still to be decided; nothing is written before this. */
  const lockPending = async (
    trx: Trx,
    id: string,
    action: string,
  ): Promise<Result<ApplicationRow, OrganizationError>> => {
    const application = await deps.applications.lock(trx, id);
    if (!application) return err({ code: 'application_not_found', id });
    if (application.status !== 'NEW' && application.status !== 'IN_REVIEW')
      return err({ code: 'application_decided', id, status: application.status, action });
    return ok(application);
  };

  return {
    async listApplications({ status, limit, cursor }) {
      const pages = deps.cursors.for({ list: 'applications', filter: status ?? null });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after?.ok === false) return after;
      const rows = await deps.applications.page({ status, after: after?.value, limit });
      return ok(toPage(rows, limit, (row) => pages.encode(row.created_at, row.id)));
    },

    async getApplication(id) {
      const row = await deps.applications.find(id);
      return row ? ok(row) : err({ code: 'application_not_found', id });
    },

    async startReview(id, by) {
      return db.transaction().execute(async (trx) => {
        const pending = await lockPending(trx, id, 'reviewed');
        if (!pending.ok) return pending;
        const before = pending.value;
        if (before.status === 'IN_REVIEW') return ok(before);
        const now = clock.now();
        const after = await decided(
          deps.applications.decide(trx, id, ['NEW'], 'IN_REVIEW', { reviewed_by: by.actor, updated_at: now }),
          id,
        );
        await audit.record(trx, {
          ...by,
          action: 'application.review_started',
          targetType: 'application',
          targetId: id,
          before: { status: before.status },
          after: { status: after.status },
        });
        return ok(after);
      });
    },

    async approve(id, by) {
      const result = await db
        .transaction()
        .execute(async (trx): Promise<Result<ApprovalResult, OrganizationError>> => {
          const pending = await lockPending(trx, id, 'approved');
          if (!pending.ok) return pending;
          const application = pending.value;
          // Checked before anything is written, so a refusal leaves nothing to roll back.
          if (await deps.users.hasAccount(trx, application.contact_email))
            return err({ code: 'contact_has_account', email: application.contact_email });
          const now = clock.now();
          const organizationRow = await trx
            .insertInto('organizations')
            .values({
              id: newId('org', now),
              name: application.company_name,
              application_id: application.id,
              contact_email: application.contact_email,
              kyc_status: 'REVIEWING',
              created_at: now,
              updated_at: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          const organization = toOrganization(organizationRow);
          for (const method of PAYMENT_METHODS)
            await upsertFee(trx, organization.id, method, DEFAULT_FEES[method], now);

          const { userId: ownerUserId } = await deps.users.createOwnerUser(trx, {
            organizationId: organization.id,
            email: application.contact_email,
            name: application.contact_name,
          });
          const { url: activationUrl } = await deps.users.createActivation(trx, { userId: ownerUserId });

          const sandboxKey = await issueApiKey(trx, clock, {
            organizationId: organization.id,
            environment: 'sandbox',
            scopes: ['all'],
            name: 'First sandbox key',
            createdBy: 'system',
          });

          await decided(
            deps.applications.decide(trx, id, ['NEW', 'IN_REVIEW'], 'APPROVED', {
              reviewed_by: by.actor,
              reviewed_at: now,
              organization_id: organization.id,
              updated_at: now,
            }),
            id,
          );
          const emailId = await mailer.enqueue(
            trx,
            application.contact_email,
            applicationApprovedEmail({
              companyName: application.company_name,
              sandboxKey: sandboxKey.secret,
              activationUrl,
              dashboardUrl: `${deps.urls.web()}/login`,
              sandboxApiUrl: `${deps.urls.sandboxApi()}/v1`,
            }),
          );
          await audit.record(trx, {
            ...by,
            action: 'application.approved',
            targetType: 'application',
            targetId: id,
            organizationId: organization.id,
            before: { status: application.status },
            after: {
              status: 'APPROVED',
              organizationId: organization.id,
              sandboxKeyId: sandboxKey.id,
              ownerUserId,
            },
          });
          return ok({
            organization,
            ownerUserId,
            ownerEmail: application.contact_email,
            sandboxKey,
            activationUrl,
            emailId,
          });
        });
      if (result.ok) mailer.nudge();
      return result;
    },

    async reject(id, reason, by) {
      const rejected = await db.transaction().execute(async (trx) => {
        const pending = await lockPending(trx, id, 'rejected');
        if (!pending.ok) return pending;
        const before = pending.value;
        const now = clock.now();
        const after = await decided(
          deps.applications.decide(trx, id, ['NEW', 'IN_REVIEW'], 'REJECTED', {
            reviewed_by: by.actor,
            reviewed_at: now,
            decision_reason: reason,
            updated_at: now,
          }),
          id,
        );
        await mailer.enqueue(
          trx,
          before.contact_email,
          applicationRejectedEmail({ companyName: before.company_name, reason }),
        );
        await audit.record(trx, {
          ...by,
          action: 'application.rejected',
          targetType: 'application',
          targetId: id,
          before: { status: before.status },
          after: { status: 'REJECTED', reason },
        });
        return ok(after);
      });
      if (rejected.ok) mailer.nudge();
      return rejected;
    },
  };
}

/** Operations on approved merchants: KYC, fees, feature flags, rate limits, freezing. */
export function createOrganizationAdminService(
  deps: Pick<Deps, 'db' | 'clock' | 'audit' | 'cursors'>,
): OrganizationAdminService {
  const { db, clock, audit } = deps;

  const mustFind = async (
    trx: Kdb,
    id: string,
    forUpdate = false,
  ): Promise<Result<Organization, OrganizationError>> => {
    const organization = await findOrganization(trx, id, { forUpdate });
    return organization ? ok(organization) : err({ code: 'organization_not_found', id });
  };

  /** Locks the row, applies the change, audits before and after, in one transaction. */
  const change = async (
    id: string,
    by: Actor,
    action: string,
    apply: (trx: Kdb, before: Organization, now: Date) => Promise<void>,
    describe: (organization: Organization) => unknown,
  ): Promise<Result<Organization, OrganizationError>> =>
    db.transaction().execute(async (trx) => {
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

  return {
    async list({ limit, cursor }) {
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
    },

    find: (id) => findOrganization(db, id),
    get: (id) => mustFind(db, id),
    feeSchedule: (id) => listFeeSchedule(db, id),

    setKycStatus: (id, status, by) =>
      change(
        id,
        by,
        'organization.kyc_status_set',
        async (trx) => {
          await trx.updateTable('organizations').set({ kyc_status: status }).where('id', '=', id).execute();
        },
        (o) => ({ kycStatus: o.kycStatus }),
      ),

    async setFee(id, fee, by) {
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
    },

    setFeatureFlag: (id, flag, enabled, by) =>
      change(
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
      ),

    setRateLimits: (id, limits, by) =>
      change(
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
      ),

    freeze: (id, reason, by) =>
      change(
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
      ),

    unfreeze: (id, by) =>
      change(
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
      ),
  };
}

function feesForAudit(fees: FeeScheduleEntry[]) {
  return Object.fromEntries(
    fees.map((f) => [f.paymentMethod, { basisPoints: f.basisPoints, fixedMinor: f.fixedMinor.toString() }]),
  );
}

export type { PaymentMethod };
