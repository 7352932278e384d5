import type { Trx } from '../../db/database.js';
import type { UserRole } from '../../db/schema.js';
import { createLoginThrottle } from '../../http/login-throttle.js';
import type { IssuedApiKey } from '../api-keys/issue.js';
import type { OwnerAccounts } from '../organizations/types.js';
import { account, hasAccount, team } from './accounts.js';
import {
  activate,
  activateWithPassword,
  createActivation,
  createOwnerUser,
  inspectToken,
} from './activation.js';
import { recordAudit } from './audit.js';
import type { UserServiceDeps } from './deps.js';
import { acceptInvitation, invite } from './invitations.js';
import {
  changePassword,
  passwordResetsSettled,
  requestPasswordReset,
  resetPassword,
  type PendingResets,
} from './passwords.js';
import {
  activeMemberEmails,
  activeOwnerEmails,
  countUnusedRecoveryCodes,
  purgeAccountTokens,
} from './repository.js';
import { verifySecondFactor } from './second-factor.js';
import { completeMfaLogin, login } from './sign-in.js';
import { confirmTotpEnrollment, disableTotp, startTotpEnrollment } from './totp-enrollment.js';
import type {
  Account,
  DashboardUser,
  PasswordReset,
  RequestContext,
  TokenView,
  TotpEnrollment,
  UserResult,
} from './types.js';

/**
 * Dashboard accounts. Its `OwnerAccounts` part serves the approval of an application (the invited owner
 * and its activation link) and the demo merchant of the operator CLI (its password set at once, the
 * activation link spent), each in the caller's transaction.
 */
export interface UserService extends OwnerAccounts {
  inspectToken(kind: 'activation' | 'invitation' | 'password_reset', token: string): Promise<TokenView>;
  activate(
    input: { token: string; password: string },
    context: RequestContext,
  ): Promise<UserResult<{ userId: string; email: string; liveKey: IssuedApiKey }>>;
  acceptInvitation(
    input: { token: string; password: string; name: string },
    context: RequestContext,
  ): Promise<UserResult<{ userId: string; email: string }>>;

  login(
    input: { email: string; password: string },
    context: RequestContext,
  ): Promise<UserResult<{ userId: string; mfaRequired: boolean }>>;
  /** The second step of a login with two-factor authentication: a TOTP code or a recovery code. */
  completeMfaLogin(userId: string, code: string, context: RequestContext): Promise<UserResult<void>>;

  /**
   * Accepts a reset request and returns before anything about the address is looked up: the lookup,
   * the link and the e-mail happen out of band, so the answer takes the same time for every address.
   */
  requestPasswordReset(
    email: string,
    context: RequestContext,
    /** When the work may start: the route passes "the answer has been sent". */
    after?: Promise<void>,
  ): Promise<void>;
  /** Resolves when every accepted reset request has been worked off (tests, shutdown). */
  passwordResetsSettled(): Promise<void>;
  /** Deletes single-use tokens used or expired before `before` (retention); the number deleted. */
  purgeSpentTokens(before: Date): Promise<number>;
  /** The e-mail addresses of an organization's active owners, in the caller's transaction. */
  activeOwnerEmails(trx: Trx, organizationId: string): Promise<string[]>;
  /** The active members of these roles (wallet change notices), in the caller's transaction. */
  activeMemberEmails(trx: Trx, organizationId: string, roles: readonly UserRole[]): Promise<string[]>;
  /**
   * Checks and consumes a second factor (a TOTP code, each time step once, or a recovery code) of an
   * active user with 2FA on, in the caller's transaction; false otherwise.
   */
  verifySecondFactor(trx: Trx, userId: string, code: string, context: RequestContext): Promise<boolean>;
  resetPassword(
    input: { token: string; password: string },
    context: RequestContext,
  ): Promise<UserResult<PasswordReset>>;
  changePassword(
    userId: string,
    input: { currentPassword: string; newPassword: string; keepSessionTokenHash: string },
    context: RequestContext,
  ): Promise<UserResult<{ sessionsEnded: number }>>;

  startTotpEnrollment(userId: string, context: RequestContext): Promise<UserResult<TotpEnrollment>>;
  confirmTotpEnrollment(
    userId: string,
    code: string,
    context: RequestContext & { keepSessionTokenHash: string },
  ): Promise<UserResult<{ recoveryCodes: string[] }>>;
  disableTotp(userId: string, code: string, context: RequestContext): Promise<UserResult<void>>;

  invite(
    actorId: string,
    input: { email: string; role: UserRole; name: string | null },
    context: RequestContext,
  ): Promise<UserResult<{ userId: string }>>;

  account(userId: string): Promise<Account | undefined>;
  team(organizationId: string): Promise<DashboardUser[]>;
  recoveryCodesLeft(userId: string): Promise<number>;
  recordAudit(
    actor: DashboardUser,
    action: string,
    context: RequestContext,
    extra?: { after?: unknown; targetType?: string; targetId?: string },
  ): Promise<void>;
}

/**
 * Dashboard accounts: activation, invitations, throttled login with two factors, password reset. Binds
 * the dependencies (and the login throttle and the pending reset requests) to the use cases.
 */
export function createUserService(deps: UserServiceDeps): UserService {
  const throttle = createLoginThrottle({ db: deps.db, clock: deps.clock });
  const pendingResets: PendingResets = new Set();
  return {
    createOwnerUser: (dbOrTrx, input) => createOwnerUser(deps, dbOrTrx, input),
    createActivation: (dbOrTrx, input) => createActivation(deps, dbOrTrx, input),
    hasAccount: (dbOrTrx, email) => hasAccount(dbOrTrx, email),
    activateWithPassword: (dbOrTrx, input) => activateWithPassword(deps, dbOrTrx, input),
    inspectToken: (kind, token) => inspectToken(deps, kind, token),
    activate: (input, context) => activate(deps, input, context),
    acceptInvitation: (input, context) => acceptInvitation(deps, input, context),
    login: (input, context) => login(deps, throttle, input, context),
    completeMfaLogin: (userId, code, context) => completeMfaLogin(deps, throttle, userId, code, context),
    requestPasswordReset: (email, context, after) =>
      requestPasswordReset(deps, pendingResets, email, context, after),
    passwordResetsSettled: () => passwordResetsSettled(pendingResets),
    purgeSpentTokens: (before) => purgeAccountTokens(deps.db, before),
    activeOwnerEmails: (trx, organizationId) => activeOwnerEmails(trx, organizationId),
    activeMemberEmails: (trx, organizationId, roles) => activeMemberEmails(trx, organizationId, roles),
    verifySecondFactor: (trx, userId, code, context) => verifySecondFactor(deps, trx, userId, code, context),
    resetPassword: (input, context) => resetPassword(deps, throttle, input, context),
    changePassword: (userId, input, context) => changePassword(deps, userId, input, context),
    startTotpEnrollment: (userId, context) => startTotpEnrollment(deps, userId, context),
    confirmTotpEnrollment: (userId, code, context) => confirmTotpEnrollment(deps, userId, code, context),
    disableTotp: (userId, code, context) => disableTotp(deps, userId, code, context),
    invite: (actorId, input, context) => invite(deps, actorId, input, context),
    account: (userId) => account(deps, userId),
    team: (organizationId) => team(deps, organizationId),
    recoveryCodesLeft: (userId) => countUnusedRecoveryCodes(deps.db, userId),
    recordAudit: (actor, action, context, extra) => recordAudit(deps, actor, action, context, extra),
  };
}
