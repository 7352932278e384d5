import { isUniqueViolation } from '../../db/errors.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { PasswordField, UserError, UserErrorCode } from './errors.js';
import QRCode from 'qrcode';
import type { Kdb, Trx } from '../../db/database.js';
import type { UserRole } from '../../db/schema.js';
import type { Realm } from '../../http/session.js';
import type { Logger } from 'pino';
import type { SessionManager } from '../../http/session.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { Urls } from '../../shared/urls.js';
import type { AuditLog } from '../audit/service.js';
import type { Mailer } from '../email/service.js';
import type { OrganizationDirectory } from '../organizations/types.js';
import { MINUTE } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { createLoginThrottle, type LoginAttempt } from '../../http/login-throttle.js';
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from '../../shared/passwords.js';
import { issueApiKey, type IssuedApiKey } from '../api-keys/service.js';
import { invitationEmail, passwordResetEmail } from '../email/templates.js';
import type { Organization } from '../organizations/types.js';
import {
  claimTotpStep,
  consumeAccountToken,
  countUnusedRecoveryCodes,
  findAccountToken,
  findUserByEmail,
  findUserById,
  insertAccountToken,
  insertUser,
  listOrganizationUsers,
  replaceRecoveryCodes,
  activeOwnerEmails,
  activeMemberEmails,
  purgeAccountTokens,
  retireAccountTokens,
  useRecoveryCode,
  type AccountTokenKind,
  type UserRow,
} from './repository.js';
import { ACCOUNT_TOKEN_PATH, ACCOUNT_TOKEN_TTL_MS, accountTokenHash, newAccountToken } from './tokens.js';
import {
  matchTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  normalizeSecondFactor,
  otpauthUri,
  recoveryCodeHash,
} from './totp.js';

export const DASHBOARD_REALM: Realm = 'dashboard';
/** A password was right but the second factor is still owed: that half-open session is short-lived. */
export const PENDING_MFA_TTL_MS = 10 * MINUTE;
/** How long a password reset request waits after its answer went out before it is worked off. */
const RESET_WORK_DELAY_MS = 20;

/** Who may invite, and which roles they may hand out. Nobody invites a second owner. */
export const INVITING_ROLES: readonly UserRole[] = ['owner', 'admin'];
export const INVITABLE_ROLES: readonly UserRole[] = ['admin', 'developer', 'viewer'];

/**
 * What each dashboard role may do beyond reading, and who reads the pages that have a rule of their own:
 * the one place these rules live (the pages ask `userMay`). A viewer reads only.
 */
export const DASHBOARD_PERMISSIONS = {
  /**
   * The settlement pages and statements (issue 14 item 7): the money the organization was paid. Owners,
   * admins and viewers (an accountant's seat) read them; a developer's work is the integration, not the
   * books.
   */
  readSettlements: ['owner', 'admin', 'viewer'],
  /**
   * The customer pages (issue 15 item 5, flag `customers`): who paid and their charges. Every role reads
   * them (support answers customers); the ID number is never shown to anyone.
   */
  readCustomers: ['owner', 'admin', 'developer', 'viewer'],
  /**
   * The event pages (the Developers area, flag `events`): what happened and what webhooks carried. Every
   * role reads them, as every role reads payments.
   */
  readEvents: ['owner', 'admin', 'developer', 'viewer'],
  /** The Payments pages (issue 15 item 1): every role reads the charges, their timeline and ledger lines. */
  readPayments: ['owner', 'admin', 'developer', 'viewer'],
  /** Refund all or part of a charge from its page (issue 15 item 1): money leaves the organization. */
  refundCharges: ['owner', 'admin'],
  /**
   * The CSV exports of charges, refunds and payouts (issue 15 item 4, docs/exports.md): the books, with
   * customers' e-mail addresses. Owners, admins and viewers (the accountant's seat) export; a developer
   * does not, as with settlements (an integration reads the API with its own key instead).
   */
  exportRecords: ['owner', 'admin', 'viewer'],
  invite: INVITING_ROLES,
  manageApiKeys: ['owner', 'admin', 'developer'],
  manageWebhooks: ['owner', 'admin', 'developer'],
  /** Add a wallet, change the default, archive, cancel a change (issue 13). */
  requestWalletChange: ['owner', 'admin'],
  /**
   * A manual payout from the balance page (flag `payouts`): money leaves the organization, as with a
   * refund, but only to the default wallet, whose changes an owner confirms and which cool down first.
   */
  createPayouts: ['owner', 'admin'],
  /** Confirm a wallet change from the e-mailed link. */
  confirmWalletChange: ['owner'],
  /**
   * The checkout's branding (issue 15 item 6): the name, colour and logo customers see. Every role reads
   * the page; developers and viewers cannot change what customers are shown.
   */
  manageBranding: ['owner', 'admin'],
} as const satisfies Record<string, readonly UserRole[]>;
export type DashboardPermission = keyof typeof DASHBOARD_PERMISSIONS;

export function userMay(user: { role: UserRole }, permission: DashboardPermission): boolean {
  return (DASHBOARD_PERMISSIONS[permission] as readonly UserRole[]).includes(user.role);
}
export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'developer', 'viewer'];

/** An account operation's answer: the value, or one of the refusals of users/errors.ts. */
export type UserResult<T> = Result<T, UserError>;

/** Where a security action came from, for the audit log. */
export interface RequestContext {
  ip: string | null;
  requestId: string | null;
}

export interface DashboardUser {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: UserRole;
  status: UserRow['status'];
  totp: 'off' | 'pending' | 'on';
  createdAt: Date;
}

export interface Account {
  user: DashboardUser;
  organization: Organization;
}

export type TokenView =
  | { state: 'valid'; email: string; role: UserRole; organizationName: string }
  | { state: 'used' }
  | { state: 'invalid' };

export interface TotpEnrollment {
  secret: string;
  otpauthUri: string;
  qrCodeDataUrl: string;
}

export interface UserService {
  /** For the approval of an application: the owner account, invited, without a password. */
  createOwnerUser(
    db: Kdb,
    input: { organizationId: string; email: string; name: string },
  ): Promise<{ userId: string }>;
  /** For the approval of an application, in its transaction: the 72-hour single-use activation link. */
  createActivation(db: Kdb, input: { userId: string }): Promise<{ url: string }>;
  /** Whether a dashboard account (any organization, any status) uses this address, case-insensitively. */
  hasAccount(db: Kdb, email: string): Promise<boolean>;
  /**
   * For a demo merchant (the operator CLI): the invited owner gets this password and is active at once;
   * the activation link is spent. In the caller's transaction.
   */
  activateWithPassword(db: Kdb, input: { userId: string; password: string }): Promise<void>;

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
  ): Promise<UserResult<{ userId: string; sessionsEnded: number }>>;
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

export type UserServiceDeps = {
  db: Kdb;
  clock: Clock;
  urls: Urls;
  box: SecretBox;
  audit: AuditLog;
  mailer: Mailer;
  sessions: SessionManager;
  logger: Logger;
  /** The organization of an account: read through the organizations module, never its tables. */
  organizations: OrganizationDirectory;
};

/** Dashboard accounts: activation, invitations, throttled login with two factors, password reset. */
export function createUserService(deps: UserServiceDeps): UserService {
  const { db, clock, box, audit, mailer, sessions, logger } = deps;
  const throttle = createLoginThrottle({ db, clock });
  const attemptOf = (email: string, context: RequestContext): LoginAttempt => ({
    realm: DASHBOARD_REALM,
    email,
    address: context.ip ?? '',
  });
  const pendingResets = new Set<Promise<void>>();

  const toUser = (row: UserRow): DashboardUser => ({
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    totp: row.totp_enabled_at !== null ? 'on' : row.totp_secret_enc !== null ? 'pending' : 'off',
    createdAt: row.created_at,
  });

  const record = (
    dbOrTrx: Kdb,
    user: Pick<UserRow, 'id' | 'organization_id'>,
    action: string,
    context: RequestContext,
    extra: { actor?: string; after?: unknown; targetType?: string; targetId?: string } = {},
  ) =>
    audit.record(dbOrTrx, {
      actor: extra.actor ?? `user:${user.id}`,
      action,
      targetType: extra.targetType ?? 'user',
      targetId: extra.targetId ?? user.id,
      organizationId: user.organization_id,
      after: extra.after,
      requestId: context.requestId,
      ip: context.ip,
    });

  const issueToken = async (dbOrTrx: Kdb, userId: string, kind: AccountTokenKind): Promise<string> => {
    const now = clock.now();
    await retireAccountTokens(dbOrTrx, userId, kind, now);
    const { token, tokenHash } = newAccountToken();
    await insertAccountToken(dbOrTrx, {
      tokenHash,
      kind,
      userId,
      now,
      expiresAt: new Date(now.getTime() + ACCOUNT_TOKEN_TTL_MS[kind]),
    });
    return `${deps.urls.web()}${ACCOUNT_TOKEN_PATH[kind]}/${token}`;
  };

  /** The token's user when the token is live, or why not. */
  const liveToken = async (
    kind: AccountTokenKind,
    token: string,
  ): Promise<{ state: 'valid'; user: UserRow } | { state: 'used' } | { state: 'invalid' }> => {
    const tokenHash = accountTokenHash(token);
    if (tokenHash === undefined) return { state: 'invalid' };
    const row = await findAccountToken(db, kind, tokenHash);
    if (!row) return { state: 'invalid' };
    if (row.used_at !== null) return { state: 'used' };
    if (row.expires_at.getTime() <= clock.now().getTime()) return { state: 'invalid' };
    const user = await findUserById(db, row.user_id);
    const expectedStatus = kind === 'password_reset' ? 'active' : 'invited';
    if (!user || user.status !== expectedStatus) {
      // A concurrent redemption may have committed between the two reads: the token was unused when
      // read, the user is active now. The link was used, not invalid (410, not 404).
      const again = await findAccountToken(db, kind, tokenHash);
      return again?.used_at != null ? { state: 'used' } : { state: 'invalid' };
    }
    return { state: 'valid', user };
  };

  const weak = (password: string, email: string, field: PasswordField = 'password') => {
    const problem = passwordProblem(password, email);
    return problem === undefined ? undefined : err<UserError>({ code: 'weak_password', problem, field });
  };

  const throttled = (retryAfterSeconds: number) => err<UserError>({ code: 'throttled', retryAfterSeconds });
  const fail = (code: UserErrorCode) => err<UserError>({ code });

  /** Checks a TOTP code (each time step once) or an unused recovery code, and consumes it. */
  const checkSecondFactor = async (
    dbOrTrx: Kdb,
    user: UserRow,
    input: string,
    context: RequestContext,
  ): Promise<boolean> => {
    if (user.totp_secret_enc === null) return false;
    const factor = normalizeSecondFactor(input);
    if (!factor) return false;
    const now = clock.now();
    if (factor.kind === 'totp') {
      const step = matchTotpStep(box.open(user.totp_secret_enc), factor.code, now);
      return step !== undefined && (await claimTotpStep(dbOrTrx, user.id, step, now));
    }
    if (user.totp_enabled_at === null) return false;
    const used = await useRecoveryCode(dbOrTrx, user.id, recoveryCodeHash(user.id, factor.code), now);
    if (used) await record(dbOrTrx, user, 'user.recovery_code_used', context);
    return used;
  };

  /**
   * Uses a single-use activation or invitation link: the token is consumed, the invited user gets the
   * password and becomes active, and `then` runs, all in one transaction. Of two concurrent uses, one
   * wins; the other is told the link was used.
   */
  const redeemToken = async <T>(
    kind: 'activation' | 'invitation',
    token: string,
    password: string,
    changes: { failed_logins?: number; locked_until?: null; name?: string },
    then: (trx: Kdb, user: UserRow) => Promise<T>,
  ): Promise<UserResult<T>> => {
    const found = await liveToken(kind, token);
    if (found.state !== 'valid') return fail(found.state === 'used' ? 'token_used' : 'token_invalid');
    const problem = weak(password, found.user.email);
    if (problem) return problem;
    const passwordHash = await hashPassword(password);
    const tokenHash = accountTokenHash(token) as string;
    const outcome = await db
      .transaction()
      .execute(async (trx) => {
        const now = clock.now();
        const userId = await consumeAccountToken(trx, kind, tokenHash, now);
        if (userId === undefined) return undefined;
        const user = await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, status: 'active', ...changes, updated_at: now })
          .where('id', '=', userId)
          .where('status', '=', 'invited')
          .returningAll()
          .executeTakeFirst();
        if (!user) throw new TokenRaceLost();
        return { value: await then(trx, user) };
      })
      .catch((error: unknown) => {
        if (error instanceof TokenRaceLost) return undefined;
        throw error;
      });
    if (!outcome) {
      const again = await liveToken(kind, token);
      return fail(again.state === 'used' ? 'token_used' : 'token_invalid');
    }
    return ok(outcome.value);
  };

  /** The out-of-band half of a reset request: only an active account gets a link. */
  const sendPasswordReset = async (email: string, context: RequestContext): Promise<void> => {
    const user = await findUserByEmail(db, email.trim());
    // An invited account still has its activation or invitation link.
    if (!user || user.status !== 'active') return;
    await db.transaction().execute(async (trx) => {
      const url = await issueToken(trx, user.id, 'password_reset');
      await mailer.enqueue(trx, user.email, passwordResetEmail({ url }));
      await record(trx, user, 'user.password_reset_requested', context);
    });
    mailer.nudge();
  };

  return {
    async createOwnerUser(dbOrTrx, input) {
      const now = clock.now();
      const row = await insertUser(dbOrTrx, {
        id: newId('usr', now),
        organization_id: input.organizationId,
        email: input.email.trim(),
        name: input.name,
        role: 'owner',
        status: 'invited',
        password_hash: null,
        totp_secret_enc: null,
        totp_enabled_at: null,
        locked_until: null,
        created_at: now,
        updated_at: now,
      });
      return { userId: row.id };
    },

    async createActivation(dbOrTrx, { userId }) {
      return { url: await issueToken(dbOrTrx, userId, 'activation') };
    },

    hasAccount: async (dbOrTrx, email) => (await findUserByEmail(dbOrTrx, email)) !== undefined,

    async activateWithPassword(dbOrTrx, { userId, password }) {
      const now = clock.now();
      await dbOrTrx
        .updateTable('users')
        .set({ password_hash: await hashPassword(password), status: 'active', updated_at: now })
        .where('id', '=', userId)
        .execute();
      await retireAccountTokens(dbOrTrx, userId, 'activation', now);
    },

    async inspectToken(kind, token) {
      const found = await liveToken(kind, token);
      if (found.state !== 'valid') return found;
      const organization = await deps.organizations.find(found.user.organization_id);
      return {
        state: 'valid',
        email: found.user.email,
        role: found.user.role,
        organizationName: organization?.name ?? '',
      };
    },

    activate: ({ token, password }, context) =>
      redeemToken(
        'activation',
        token,
        password,
        { failed_logins: 0, locked_until: null },
        async (trx, user) => {
          const liveKey = await issueApiKey(trx, clock, {
            organizationId: user.organization_id,
            environment: 'live',
            scopes: ['all'],
            createdBy: 'system',
            name: 'First live key',
          });
          await record(trx, user, 'user.activated', context);
          await record(trx, user, 'api_key.created', context, {
            actor: 'system',
            targetType: 'api_key',
            targetId: liveKey.id,
            after: {
              environment: 'live',
              scopes: ['all'],
              displayPrefix: liveKey.displayPrefix,
              revealedTo: user.id,
            },
          });
          return { userId: user.id, email: user.email, liveKey };
        },
      ),

    acceptInvitation: ({ token, password, name }, context) =>
      redeemToken(
        'invitation',
        token,
        password,
        name.trim() !== '' ? { name: name.trim() } : {},
        async (trx, user) => {
          await record(trx, user, 'user.invitation_accepted', context, { after: { role: user.role } });
          return { userId: user.id, email: user.email };
        },
      ),

    async login({ email, password }, context) {
      const attempt = attemptOf(email, context);
      // While this address waits (for this account, or across accounts), no password is checked: the
      // answer says so for known and unknown addresses alike, and takes no argon2 time.
      const wait = await throttle.wait(attempt);
      if (wait !== undefined) {
        const known = await findUserByEmail(db, email.trim());
        if (known) await record(db, known, 'user.login_throttled', context, { after: { wait } });
        return throttled(wait);
      }
      const user = await findUserByEmail(db, email.trim());
      // Unknown, not yet activated, disabled or wrong password: the same answer after the same work,
      // and counted the same way.
      if (!user || user.status !== 'active' || user.password_hash === null) {
        await verifyPassword(await decoyPasswordHash(), password);
        await throttle.fail(attempt);
        return fail('invalid_credentials');
      }
      if (!(await verifyPassword(user.password_hash, password))) {
        await throttle.fail(attempt);
        await record(db, user, 'user.login_failed', context);
        return fail('invalid_credentials');
      }
      const mfaRequired = user.totp_enabled_at !== null;
      // The pair is cleared once the whole login succeeded: after the second factor when it is on.
      if (!mfaRequired) await throttle.succeed(attempt);
      await record(db, user, mfaRequired ? 'user.login_password_ok' : 'user.login', context);
      return ok({ userId: user.id, mfaRequired });
    },

    async completeMfaLogin(userId, code, context) {
      const user = await findUserById(db, userId);
      if (!user || user.status !== 'active' || user.totp_enabled_at === null) return fail('inactive');
      const attempt = { ...attemptOf(user.email, context), secondFactor: true };
      const wait = await throttle.wait(attempt);
      if (wait !== undefined) {
        await record(db, user, 'user.login_throttled', context, { after: { wait } });
        return throttled(wait);
      }
      if (!(await checkSecondFactor(db, user, code, context))) {
        const started = await throttle.fail(attempt);
        await record(db, user, 'user.mfa_failed', context);
        return started === undefined ? fail('invalid_code') : throttled(started);
      }
      await throttle.succeed(attempt);
      await record(db, user, 'user.login', context, { after: { secondFactor: true } });
      return ok();
    },

    async requestPasswordReset(email, context, after) {
      // The work waits for the answer to be sent: with the embedded database a query runs on this
      // thread, and one that started before the answer went out would delay it for known addresses only.
      // It then waits a little longer, so that it does not compete for the CPU with the client still
      // reading the answer (on a loaded machine that alone made known addresses measurably slower).
      const job = (after ?? Promise.resolve())
        .then(() => new Promise<void>((resolve) => setTimeout(resolve, RESET_WORK_DELAY_MS)))
        .then(() => sendPasswordReset(email, context))
        .catch((error: unknown) => logger.error({ err: error }, 'password reset request failed'))
        .finally(() => pendingResets.delete(job));
      pendingResets.add(job);
    },

    async passwordResetsSettled() {
      while (pendingResets.size > 0) await Promise.all([...pendingResets]);
    },

    purgeSpentTokens: (before) => purgeAccountTokens(db, before),
    activeOwnerEmails: (trx, organizationId) => activeOwnerEmails(trx, organizationId),
    activeMemberEmails: (trx, organizationId, roles) => activeMemberEmails(trx, organizationId, roles),
    async verifySecondFactor(trx, userId, code, context) {
      const user = await findUserById(trx, userId);
      if (!user || user.status !== 'active' || user.totp_enabled_at === null) return false;
      return checkSecondFactor(trx, user, code, context);
    },

    async resetPassword({ token, password }, context) {
      const found = await liveToken('password_reset', token);
      if (found.state !== 'valid') return fail('token_invalid');
      const problem = weak(password, found.user.email);
      if (problem) return problem;
      const passwordHash = await hashPassword(password);
      const tokenHash = accountTokenHash(token) as string;
      const userId = await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const consumedBy = await consumeAccountToken(trx, 'password_reset', tokenHash, now);
        if (consumedBy === undefined) return undefined;
        await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, failed_logins: 0, locked_until: null, updated_at: now })
          .where('id', '=', consumedBy)
          .execute();
        await retireAccountTokens(trx, consumedBy, 'password_reset', now);
        await record(trx, found.user, 'user.password_reset', context);
        return consumedBy;
      });
      if (userId === undefined) return fail('token_invalid');
      // The reset proves the mailbox, and whoever guessed at the old password must start again.
      await throttle.clearAccount(DASHBOARD_REALM, found.user.email);
      // Whoever knew the old password may hold a session: a reset ends every one of them.
      const sessionsEnded = await sessions.endAll(DASHBOARD_REALM, userId);
      return ok({ userId, sessionsEnded });
    },

    async changePassword(userId, { currentPassword, newPassword, keepSessionTokenHash }, context) {
      const user = await findUserById(db, userId);
      if (!user || user.status !== 'active' || user.password_hash === null) return fail('inactive');
      if (!(await verifyPassword(user.password_hash, currentPassword))) {
        await record(db, user, 'user.password_change_failed', context);
        return fail('wrong_password');
      }
      const problem = weak(newPassword, user.email, 'newPassword');
      if (problem) return problem;
      const passwordHash = await hashPassword(newPassword);
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, updated_at: clock.now() })
          .where('id', '=', user.id)
          .execute();
        await record(trx, user, 'user.password_changed', context);
      });
      const sessionsEnded = await sessions.endAll(DASHBOARD_REALM, user.id, keepSessionTokenHash);
      return ok({ sessionsEnded });
    },

    async startTotpEnrollment(userId, context) {
      const user = await findUserById(db, userId);
      if (!user || user.status !== 'active') return fail('inactive');
      if (user.totp_enabled_at !== null) return fail('totp_already_enabled');
      const secret = newTotpSecret();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ totp_secret_enc: box.seal(secret), totp_last_step: null, updated_at: clock.now() })
          .where('id', '=', user.id)
          .where('totp_enabled_at', 'is', null)
          .execute();
        await record(trx, user, 'user.2fa_enrollment_started', context);
      });
      const uri = otpauthUri(secret, user.email);
      const qrCodeDataUrl = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
      return ok({ secret, otpauthUri: uri, qrCodeDataUrl });
    },

    async confirmTotpEnrollment(userId, code, context) {
      const user = await findUserById(db, userId);
      if (!user || user.status !== 'active') return fail('inactive');
      if (user.totp_enabled_at !== null) return fail('totp_already_enabled');
      if (user.totp_secret_enc === null) return fail('totp_not_pending');
      const recoveryCodes = newRecoveryCodes();
      const enabled = await db.transaction().execute(async (trx) => {
        if (!(await checkSecondFactor(trx, user, code, context))) return false;
        const now = clock.now();
        await trx
          .updateTable('users')
          .set({ totp_enabled_at: now, updated_at: now })
          .where('id', '=', user.id)
          .execute();
        await replaceRecoveryCodes(
          trx,
          user.id,
          recoveryCodes.map((recoveryCode) => recoveryCodeHash(user.id, recoveryCode)),
          now,
        );
        await record(trx, user, 'user.2fa_enabled', context);
        return true;
      });
      if (!enabled) {
        await record(db, user, 'user.2fa_verify_failed', context);
        return fail('invalid_code');
      }
      // Sessions opened before the second factor existed did not pass it.
      await sessions.endAll(DASHBOARD_REALM, user.id, context.keepSessionTokenHash);
      return ok({ recoveryCodes });
    },

    async disableTotp(userId, code, context) {
      const user = await findUserById(db, userId);
      if (!user || user.status !== 'active') return fail('inactive');
      if (user.totp_enabled_at === null) return fail('totp_not_enabled');
      const disabled = await db.transaction().execute(async (trx) => {
        if (!(await checkSecondFactor(trx, user, code, context))) return false;
        await trx
          .updateTable('users')
          .set({ totp_secret_enc: null, totp_enabled_at: null, updated_at: clock.now() })
          .where('id', '=', user.id)
          .execute();
        await replaceRecoveryCodes(trx, user.id, [], clock.now());
        await record(trx, user, 'user.2fa_disabled', context);
        return true;
      });
      if (!disabled) {
        await record(db, user, 'user.2fa_disable_failed', context);
        return fail('invalid_code');
      }
      return ok();
    },

    async invite(actorId, input, context) {
      const actor = await findUserById(db, actorId);
      if (!actor || actor.status !== 'active') return fail('inactive');
      if (!userMay(actor, 'invite')) return fail('not_permitted');
      if (!INVITABLE_ROLES.includes(input.role)) return fail('role_not_allowed');
      const email = input.email.trim();
      const organization = await deps.organizations.find(actor.organization_id);
      if (!organization) return fail('inactive');
      const existing = await findUserByEmail(db, email);
      // A pending invitation of the same organization is sent again; any other account is left alone.
      if (existing && (existing.organization_id !== actor.organization_id || existing.status !== 'invited')) {
        return fail('email_taken');
      }
      if (existing?.role === 'owner') return fail('email_taken');
      try {
        const userId = await db.transaction().execute(async (trx) => {
          const now = clock.now();
          const invitee = existing
            ? await trx
                .updateTable('users')
                .set({ role: input.role, name: input.name ?? existing.name, updated_at: now })
                .where('id', '=', existing.id)
                .where('status', '=', 'invited')
                .returningAll()
                .executeTakeFirstOrThrow()
            : await insertUser(trx, {
                id: newId('usr', now),
                organization_id: actor.organization_id,
                email,
                name: input.name,
                role: input.role,
                status: 'invited',
                password_hash: null,
                totp_secret_enc: null,
                totp_enabled_at: null,
                locked_until: null,
                created_at: now,
                updated_at: now,
              });
          const url = await issueToken(trx, invitee.id, 'invitation');
          await mailer.enqueue(
            trx,
            invitee.email,
            invitationEmail({ organizationName: organization.name, role: input.role, url }),
          );
          await record(trx, actor, 'user.invited', context, {
            targetId: invitee.id,
            after: { email: invitee.email, role: input.role },
          });
          return invitee.id;
        });
        mailer.nudge();
        return ok({ userId });
      } catch (error) {
        if (isUniqueViolation(error)) return fail('email_taken');
        throw error;
      }
    },

    async account(userId) {
      const row = await findUserById(db, userId);
      if (!row) return undefined;
      const organization = await deps.organizations.find(row.organization_id);
      if (!organization) return undefined;
      return { user: toUser(row), organization };
    },

    async team(organizationId) {
      return (await listOrganizationUsers(db, organizationId)).map(toUser);
    },

    recoveryCodesLeft: (userId) => countUnusedRecoveryCodes(db, userId),

    async recordAudit(actor, action, context, extra = {}) {
      await record(db, { id: actor.id, organization_id: actor.organizationId }, action, context, extra);
    },
  };
}

/** Another request consumed the token first; the transaction is rolled back. */
class TokenRaceLost extends Error {}
