import type { ApplicationReview } from '../applications/service.js';
import type { Kdb } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { FeatureFlag, KycStatus, PaymentMethod, StaffRole } from '../../db/schema.js';
import type { SessionManager } from '../../http/session.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { createDemoMerchant, type DemoMerchant } from '../organizations/demo.js';
import type { Actor, OrganizationAdminService, UnderwritingService } from '../organizations/service.js';
import type { Organization } from '../organizations/types.js';
import type { UserService } from '../users/service.js';
import type { OperatorAlerts, OperatorAlertView } from './alerts.js';
import type { OperatorError } from './errors.js';
import { applicationView, organizationView } from './schemas.js';
import type { Staff, StaffService } from './staff.js';

type ApplicationView = ReturnType<typeof applicationView>;
type OrganizationView = ReturnType<typeof organizationView>;
type Answer<T> = Promise<Result<T, OperatorError>>;

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
  startReview(id: string, by: Actor): Answer<ApplicationView>;
  approveApplication(
    id: string,
    by: Actor,
  ): Answer<{
    application: ApplicationView;
    organization: OrganizationView;
    ownerEmail: string;
    emailId: string;
  }>;
  rejectApplication(id: string, reason: string, by: Actor): Answer<ApplicationView>;
  setKycStatus(id: string, status: KycStatus, by: Actor): Answer<OrganizationView>;
  setFee(
    id: string,
    fee: { paymentMethod: PaymentMethod; basisPoints: number; fixedMinor: bigint },
    by: Actor,
  ): Answer<OrganizationView>;
  setFeatureFlag(id: string, flag: FeatureFlag, enabled: boolean, by: Actor): Answer<OrganizationView>;
  setRateLimits(
    id: string,
    limits: { live: number | null; sandbox: number | null },
    by: Actor,
  ): Answer<OrganizationView>;
  freeze(id: string, reason: string, by: Actor): Answer<OrganizationView>;
  unfreeze(id: string, by: Actor): Answer<OrganizationView>;
  createStaff(
    input: { email: string; name: string; role: StaffRole; password: string },
    by: Actor,
  ): Answer<Staff>;
  /**
   * Sets a staff member's password (a forgotten one, an account locked out): audited
   * (`staff.password_set`, without the password), and every operator session of the account ends.
   */
  setStaffPassword(
    input: { email: string; password: string },
    by: Actor,
  ): Answer<{ staff: Staff; sessionsEnded: number }>;
  acknowledgeAlert(id: string, by: Actor): Answer<OperatorAlertView>;
  createDemoMerchant(
    input: { companyName?: string; email?: string; kycStatus?: KycStatus; flags?: FeatureFlag[] },
    by: Actor,
  ): Answer<DemoMerchant>;
}

export interface OperatorCommandDeps {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  staff: StaffService;
  underwriting: UnderwritingService;
  organizations: OrganizationAdminService;
  alerts: OperatorAlerts;
  users: Pick<UserService, 'activateWithPassword'>;
  sessions: Pick<SessionManager, 'endAll'>;
  /** The demo merchant files its application through the applications module. */
  applications: Pick<ApplicationReview, 'file' | 'withdrawNew'>;
  webUrl: () => string;
}

export function createOperatorCommands(deps: OperatorCommandDeps): OperatorCommands {
  const { db, audit, staff, underwriting, organizations } = deps;

  const organizationAnswer = async (
    change: Promise<Result<Organization, OperatorError>>,
  ): Answer<OrganizationView> => {
    const changed = await change;
    return changed.ok ? ok(organizationView(changed.value)) : changed;
  };

  return {
    async startReview(id, by) {
      const started = await underwriting.startReview(id, by);
      return started.ok ? ok(applicationView(started.value)) : started;
    },

    async approveApplication(id, by) {
      const approved = await underwriting.approve(id, by);
      if (!approved.ok) return approved;
      const application = await underwriting.getApplication(id);
      if (!application.ok) return application;
      // The keys and the activation link go to the merchant only, by e-mail: never to the operator.
      return ok({
        application: applicationView(application.value),
        organization: organizationView(approved.value.organization),
        ownerEmail: approved.value.ownerEmail,
        emailId: approved.value.emailId,
      });
    },

    async rejectApplication(id, reason, by) {
      const checked = checkedReason(reason);
      if (!checked.ok) return checked;
      const rejected = await underwriting.reject(id, checked.value, by);
      return rejected.ok ? ok(applicationView(rejected.value)) : rejected;
    },

    setKycStatus: (id, status, by) => organizationAnswer(organizations.setKycStatus(id, status, by)),

    async setFee(id, fee, by) {
      const refused =
        outOfRange(fee.basisPoints, 'basisPoints', BASIS_POINTS_MAX) ??
        (fee.fixedMinor < 0n || fee.fixedMinor > FIXED_FEE_MAX
          ? invalid('fixedMinor', `must be a whole number from 0 to ${FIXED_FEE_MAX}`)
          : undefined);
      if (refused) return refused;
      const fees = await organizations.setFee(id, fee, by);
      if (!fees.ok) return fees;
      const organization = await organizations.get(id);
      return organization.ok ? ok(organizationView(organization.value, fees.value)) : organization;
    },

    setFeatureFlag: (id, flag, enabled, by) =>
      organizationAnswer(organizations.setFeatureFlag(id, flag, enabled, by)),

    async setRateLimits(id, limits, by) {
      for (const [name, value] of Object.entries(limits)) {
        const refused = value === null ? undefined : outOfRange(value, name, RATE_LIMIT_MAX, 1);
        if (refused) return refused;
      }
      return organizationAnswer(organizations.setRateLimits(id, limits, by));
    },

    async freeze(id, reason, by) {
      const checked = checkedReason(reason);
      if (!checked.ok) return checked;
      return organizationAnswer(organizations.freeze(id, checked.value, by));
    },

    unfreeze: (id, by) => organizationAnswer(organizations.unfreeze(id, by)),

    createStaff: (input, by) =>
      db
        .transaction()
        .execute(async (trx): Answer<Staff> => {
          const created = await staff.create(input, trx);
          if (!created.ok) return created;
          await audit.record(trx, {
            ...by,
            action: 'staff.created',
            targetType: 'staff',
            targetId: created.value.id,
            after: { email: created.value.email, role: created.value.role },
          });
          return created;
        })
        // Two creations of one address at once both pass the service's look-up; the index decides.
        .catch((error: unknown): Awaited<Answer<Staff>> => {
          if (isUniqueViolation(error, 'staff_users_email_idx')) return err({ code: 'staff_email_taken' });
          throw error;
        }),

    setStaffPassword: async ({ email, password }, by) => {
      const changed = await db.transaction().execute(async (trx): Answer<Staff> => {
        const set = await staff.setPassword(email, password, trx);
        if (!set.ok) return set;
        await audit.record(trx, {
          ...by,
          action: 'staff.password_set',
          targetType: 'staff',
          targetId: set.value.id,
        });
        return set;
      });
      if (!changed.ok) return changed;
      // Whoever held a session with the old password holds it no longer.
      const sessionsEnded = await deps.sessions.endAll('operator', changed.value.id);
      return ok({ staff: changed.value, sessionsEnded });
    },

    acknowledgeAlert: (id, by) => deps.alerts.acknowledge(id, by),

    createDemoMerchant: (input, by) =>
      createDemoMerchant(
        {
          db,
          clock: deps.clock,
          audit,
          underwriting,
          organizations,
          users: deps.users,
          applications: deps.applications,
          webUrl: deps.webUrl,
        },
        input,
        by,
      ),
  };
}

/** A decision or freeze reason: 1 to 2000 characters once trimmed (it is stored trimmed). */
function checkedReason(reason: string): Result<string, OperatorError> {
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > REASON_MAX_LENGTH)
    return invalid('reason', `a reason of 1 to ${REASON_MAX_LENGTH} characters is required`);
  return ok(trimmed);
}

function outOfRange(value: number, field: string, max: number, min = 0) {
  if (Number.isSafeInteger(value) && value <= max && value >= min) return undefined;
  return invalid(field, `must be a whole number from ${min} to ${max}`);
}

function invalid(field: string, message: string) {
  return err<OperatorError>({ code: 'invalid_input', field, message });
}
