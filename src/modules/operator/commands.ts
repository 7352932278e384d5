import type { ApplicationReview } from '../applications/service.js';
import type { Kdb } from '../../db/database.js';
import type { FeatureFlag, KycStatus, PaymentMethod, StaffRole } from '../../db/schema.js';
import type { SessionManager } from '../../http/session.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditLog } from '../audit/service.js';
import { createDemoMerchant, type DemoMerchant } from '../organizations/demo.js';
import type { OrganizationAdminService, UnderwritingService } from '../organizations/service.js';
import type { Actor } from '../organizations/types.js';
import type { UserService } from '../users/service.js';
import type { OperatorAlerts } from './alerts.js';
import type { OperatorAlertView } from './alert-view.js';
import type { Answer } from './command-input.js';
import {
  freeze,
  setFeatureFlag,
  setFee,
  setKycStatus,
  setRateLimits,
  unfreeze,
} from './organization-commands.js';
import type { applicationView, organizationView } from './schemas.js';
import { createStaff, setStaffPassword } from './staff-commands.js';
import type { Staff, StaffService } from './staff.js';
import {
  approveApplication,
  rejectApplication,
  startReview,
  type ApprovalView,
} from './underwriting-commands.js';

type ApplicationView = ReturnType<typeof applicationView>;
type OrganizationView = ReturnType<typeof organizationView>;

/**
 * Every operator write, once: the console, the operator API and the CLI call these.
 * Each command checks its input, then does its work and writes its audit entry in one transaction (the
 * services below open it); the front ends only parse, call and present. Answers are the API's views, so
 * the CLI prints what the API returns whichever way it reached the gateway.
 */
export interface OperatorCommands {
  startReview(id: string, by: Actor): Answer<ApplicationView>;
  approveApplication(id: string, by: Actor): Answer<ApprovalView>;
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
  const { db, audit, underwriting, organizations } = deps;
  return {
    startReview: (id, by) => startReview(deps, id, by),
    approveApplication: (id, by) => approveApplication(deps, id, by),
    rejectApplication: (id, reason, by) => rejectApplication(deps, id, reason, by),
    setKycStatus: (id, status, by) => setKycStatus(deps, id, status, by),
    setFee: (id, fee, by) => setFee(deps, id, fee, by),
    setFeatureFlag: (id, flag, enabled, by) => setFeatureFlag(deps, id, flag, enabled, by),
    setRateLimits: (id, limits, by) => setRateLimits(deps, id, limits, by),
    freeze: (id, reason, by) => freeze(deps, id, reason, by),
    unfreeze: (id, by) => unfreeze(deps, id, by),
    createStaff: (input, by) => createStaff(deps, input, by),
    setStaffPassword: (input, by) => setStaffPassword(deps, input, by),
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
