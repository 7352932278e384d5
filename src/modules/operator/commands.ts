import type { Kdb } from '../../db/database.js';
import type { FeatureFlag, KycStatus, PaymentMethod, StaffRole } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditLog } from '../audit/service.js';
import { createDemoMerchant, type DemoMerchant } from '../organizations/demo.js';
import type { Actor, OrganizationAdminService, UnderwritingService } from '../organizations/service.js';
import type { OperatorAlerts, OperatorAlertView } from './alerts.js';
import { applicationView, organizationView } from './schemas.js';
import type { Staff, StaffService } from './staff.js';

type ApplicationView = ReturnType<typeof applicationView>;
type OrganizationView = ReturnType<typeof organizationView>;

export const REASON_MAX_LENGTH = 2000;
export const RATE_LIMIT_MAX = 100_000;
export const BASIS_POINTS_MAX = 10_000;
/** A fixed fee in minor units: at most 16 digits (the operator API's schema says so too). */
export const FIXED_FEE_MAX = 10n ** 16n - 1n;

/**
 * Every operator write, once (issue 12 item 9): the console, the operator API and the CLI call these.
 * Each command checks its input, then does its work and writes its audit entry in one transaction (the
 * services below open it); the front ends only parse, call and present. Answers are the API's views, so
 * the CLI prints what the API returns whichever way it reached the gateway.
 */
export interface OperatorCommands {
  startReview(id: string, by: Actor): Promise<ApplicationView>;
  approveApplication(
    id: string,
    by: Actor,
  ): Promise<{
    application: ApplicationView;
    organization: OrganizationView;
    ownerEmail: string;
    emailId: string;
  }>;
  rejectApplication(id: string, reason: string, by: Actor): Promise<ApplicationView>;
  setKycStatus(id: string, status: KycStatus, by: Actor): Promise<OrganizationView>;
  setFee(
    id: string,
    fee: { paymentMethod: PaymentMethod; basisPoints: number; fixedMinor: bigint },
    by: Actor,
  ): Promise<OrganizationView>;
  setFeatureFlag(id: string, flag: FeatureFlag, enabled: boolean, by: Actor): Promise<OrganizationView>;
  setRateLimits(
    id: string,
    limits: { live: number | null; sandbox: number | null },
    by: Actor,
  ): Promise<OrganizationView>;
  freeze(id: string, reason: string, by: Actor): Promise<OrganizationView>;
  unfreeze(id: string, by: Actor): Promise<OrganizationView>;
  createStaff(
    input: { email: string; name: string; role: StaffRole; password: string },
    by: Actor,
  ): Promise<Staff>;
  acknowledgeAlert(id: string, by: Actor): Promise<OperatorAlertView>;
  createDemoMerchant(
    input: { companyName?: string; email?: string; kycStatus?: KycStatus; flags?: FeatureFlag[] },
    by: Actor,
  ): Promise<DemoMerchant>;
}

export interface OperatorCommandDeps {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  staff: StaffService;
  underwriting: UnderwritingService;
  organizations: OrganizationAdminService;
  alerts: OperatorAlerts;
  webUrl: () => string;
}

export function createOperatorCommands(deps: OperatorCommandDeps): OperatorCommands {
  const { db, audit, staff, underwriting, organizations } = deps;

  return {
    startReview: async (id, by) => applicationView(await underwriting.startReview(id, by)),

    async approveApplication(id, by) {
      const result = await underwriting.approve(id, by);
      // The keys and the activation link go to the merchant only, by e-mail: never to the operator.
      return {
        application: applicationView(await underwriting.getApplication(id)),
        organization: organizationView(result.organization),
        ownerEmail: result.ownerEmail,
        emailId: result.emailId,
      };
    },

    rejectApplication: async (id, reason, by) =>
      applicationView(await underwriting.reject(id, checkedReason(reason), by)),

    setKycStatus: async (id, status, by) =>
      organizationView(await organizations.setKycStatus(id, status, by)),

    async setFee(id, fee, by) {
      wholeNumber(fee.basisPoints, 'basisPoints', BASIS_POINTS_MAX);
      if (fee.fixedMinor < 0n || fee.fixedMinor > FIXED_FEE_MAX)
        throw invalid('fixedMinor', `must be a whole number from 0 to ${FIXED_FEE_MAX}`);
      const fees = await organizations.setFee(id, fee, by);
      return organizationView(await organizations.get(id), fees);
    },

    setFeatureFlag: async (id, flag, enabled, by) =>
      organizationView(await organizations.setFeatureFlag(id, flag, enabled, by)),

    async setRateLimits(id, limits, by) {
      for (const [name, value] of Object.entries(limits))
        if (value !== null) wholeNumber(value, name, RATE_LIMIT_MAX, 1);
      return organizationView(await organizations.setRateLimits(id, limits, by));
    },

    freeze: async (id, reason, by) =>
      organizationView(await organizations.freeze(id, checkedReason(reason), by)),

    unfreeze: async (id, by) => organizationView(await organizations.unfreeze(id, by)),

    createStaff: (input, by) =>
      db.transaction().execute(async (trx) => {
        const created = await staff.create(input, trx);
        await audit.record(trx, {
          ...by,
          action: 'staff.created',
          targetType: 'staff',
          targetId: created.id,
          after: { email: created.email, role: created.role },
        });
        return created;
      }),

    acknowledgeAlert: (id, by) => deps.alerts.acknowledge(id, by),

    createDemoMerchant: (input, by) =>
      createDemoMerchant(
        { db, clock: deps.clock, audit, underwriting, organizations, webUrl: deps.webUrl },
        input,
        by,
      ),
  };
}

/** A decision or freeze reason: 1 to 2000 characters once trimmed (it is stored trimmed). */
function checkedReason(reason: string): string {
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > REASON_MAX_LENGTH)
    throw invalid('reason', `a reason of 1 to ${REASON_MAX_LENGTH} characters is required`);
  return trimmed;
}

function wholeNumber(value: number, name: string, max: number, min = 0): void {
  if (!Number.isSafeInteger(value) || value > max || value < min)
    throw invalid(name, `must be a whole number from ${min} to ${max}`);
}

function invalid(path: string, message: string): ApiError {
  return ApiError.validation([{ path, in: 'body', code: 'invalid_value', message }]);
}
