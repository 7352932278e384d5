import type { Trx } from '../../db/database.js';
import type { ApplicationRow, FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import type { CursorError } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import { approve } from './approve.js';
import type { OrganizationError } from './errors.js';
import {
  change,
  listOrganizations,
  mustFind,
  setFee,
  settings,
  type OrganizationAdminDeps,
} from './organization-admin.js';
import { findOrganization, listFeeSchedule, lockFrozen, organizationNames } from './repository.js';
import { getApplication, listApplications, reject, startReview } from './review.js';
import type { Actor, FeeScheduleEntry, Organization, OrganizationDirectory } from './types.js';
import type { ApplicationPage, ApprovalResult, UnderwritingDeps } from './underwriting-types.js';

/**
 * Which of these organizations an operator has frozen, read in the caller's transaction under a share
 * lock on their rows: the settlement batch holds a frozen organization's automatic payout
 * (docs/settlement.md), and a freeze waits for a payout phase under way to end.
 */
export function frozenOrganizations(trx: Trx, ids: readonly string[]): Promise<Set<string>> {
  return lockFrozen(trx, ids);
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
  /** The names of these organizations, by id (unknown ids left out): the operator's lists across them. */
  names(ids: readonly string[]): Promise<Map<string, string>>;
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
  /**
   * Whether every card payment of the organization goes through 3-D Secure (the checkout asks the
   * acquirer for it from the next card attempt on); audited with the operator's reason.
   */
  setThreeDSecureRequired(
    id: string,
    required: boolean,
    reason: string,
    by: Actor,
  ): Promise<Result<Organization, OrganizationError>>;
}

/** Application review: NEW -> IN_REVIEW -> APPROVED | REJECTED (product decision 4). */
export function createUnderwritingService(deps: UnderwritingDeps): UnderwritingService {
  return {
    listApplications: (filter) => listApplications(deps, filter),
    getApplication: (id) => getApplication(deps, id),
    startReview: (id, by) => startReview(deps, id, by),
    approve: (id, by) => approve(deps, id, by),
    reject: (id, reason, by) => reject(deps, id, reason, by),
  };
}

/** Operations on approved merchants: KYC, fees, feature flags, rate limits, freezing, 3-D Secure. */
export function createOrganizationAdminService(deps: OrganizationAdminDeps): OrganizationAdminService {
  const { db } = deps;
  return {
    list: (options) => listOrganizations(deps, options),
    find: (id) => findOrganization(db, id),
    get: (id) => mustFind(db, id),
    names: (ids) => organizationNames(db, ids),
    feeSchedule: (id) => listFeeSchedule(db, id),
    setKycStatus: (id, status, by) => change(deps, id, by, settings.kycStatus(status)),
    setFee: (id, fee, by) => setFee(deps, id, fee, by),
    setFeatureFlag: (id, flag, enabled, by) => change(deps, id, by, settings.featureFlag(flag, enabled)),
    setRateLimits: (id, limits, by) => change(deps, id, by, settings.rateLimits(limits)),
    freeze: (id, reason, by) => change(deps, id, by, settings.frozen(reason)),
    unfreeze: (id, by) => change(deps, id, by, settings.unfrozen()),
    setThreeDSecureRequired: (id, required, reason, by) =>
      change(deps, id, by, settings.threeDSecure(required, reason)),
  };
}

export type { PaymentMethod };
