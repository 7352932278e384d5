import type { Selectable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { findOne } from '../../db/rows.js';
import type { StaffRole, StaffUsersTable } from '../../db/schema.js';
import { createLoginThrottle, type LoginAttempt } from '../../http/login-throttle.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditLog } from '../audit/service.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from '../../shared/passwords.js';
import type { StaffError } from './errors.js';

export interface Staff {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
}

/** What each staff role may do; support reads, underwriters decide applications and KYC, admins do all. */
export const STAFF_PERMISSIONS = {
  read: ['admin', 'underwriter', 'support'],
  underwrite: ['admin', 'underwriter'],
  administer: ['admin'],
} as const satisfies Record<string, readonly StaffRole[]>;
export type StaffPermission = keyof typeof STAFF_PERMISSIONS;

export function can(staff: Staff, permission: StaffPermission): boolean {
  return (STAFF_PERMISSIONS[permission] as readonly StaffRole[]).includes(staff.role);
}

const toStaff = (row: Selectable<StaffUsersTable>): Staff => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
});

/** Where a login attempt comes from: the client address (`request.ip`) and the request, for the audit. */
export interface StaffLoginContext {
  ip: string;
  requestId: string;
}

export interface StaffService {
  /** In the caller's transaction when one is given (the command audits the creation in it). */
  create(
    input: { email: string; name: string; role: StaffRole; password: string },
    trx?: Trx,
  ): Promise<Result<Staff, StaffError>>;
  get(id: string): Promise<Staff | undefined>;
  /** Every staff member's name by id, disabled ones included: who did what in the console's pages. */
  names(): Promise<Map<string, string>>;
  count(): Promise<number>;
  /**
   * The staff member, or `invalid_credentials` (the same for an unknown address), or `login_throttled`
   * while this e-mail and client address, or this address across accounts, must wait after failures:
   * then the password is not checked. A wrong password and a refused attempt of a known account are
   * audited (`staff.login_failed`, `staff.login_throttled`), like the dashboard's (ADR 0006, 0019).
   */
  authenticate(
    email: string,
    password: string,
    context: StaffLoginContext,
  ): Promise<Result<Staff, StaffError>>;
  /**
   * Sets a staff member's password (the `set-staff-password` command, audited there), in the caller's
   * transaction when one is given, and lifts a lockout of the account.
   */
  setPassword(email: string, password: string, trx?: Trx): Promise<Result<Staff, StaffError>>;
}

export function createStaffService(deps: { db: Kdb; clock: Clock; audit: AuditLog }): StaffService {
  const { db, clock, audit } = deps;
  const throttle = createLoginThrottle({ db, clock });
  const byEmail = (email: string, from: Kdb = db) =>
    from
      .selectFrom('staff_users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
      .executeTakeFirst();

  const record = (staffId: string, action: string, context: StaffLoginContext, after?: unknown) =>
    audit.record(db, {
      actor: `staff:${staffId}`,
      action,
      targetType: 'staff',
      targetId: staffId,
      after,
      requestId: context.requestId,
      ip: context.ip,
    });

  const weakPassword = (password: string, email: string): StaffError | undefined => {
    const problem = passwordProblem(password, email);
    return problem ? { code: 'weak_password', problem } : undefined;
  };

  return {
    async create({ email, name, role, password }, trx) {
      const on = trx ?? db;
      const weak = weakPassword(password, email);
      if (weak) return err(weak);
      if (await byEmail(email, on)) return err({ code: 'staff_email_taken' });
      const now = clock.now();
      const row = await on
        .insertInto('staff_users')
        .values({
          id: newId('stf', now),
          email: email.trim(),
          name: name.trim(),
          role,
          password_hash: await hashPassword(password),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return ok(toStaff(row));
    },

    async get(id) {
      const row = await findOne(db, 'staff_users', { id, disabled_at: null });
      return row ? toStaff(row) : undefined;
    },

    async names() {
      const rows = await db.selectFrom('staff_users').select(['id', 'name']).execute();
      return new Map(rows.map((row) => [row.id, row.name]));
    },

    async count() {
      const row = await db
        .selectFrom('staff_users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async authenticate(email, password, context) {
      const attempt: LoginAttempt = { realm: 'operator', email, address: context.ip };
      // No account-wide lock: only this address waits, for this e-mail or for all.
      const wait = await throttle.wait(attempt);
      if (wait !== undefined) {
        const known = await byEmail(email);
        if (known) await record(known.id, 'staff.login_throttled', context, { wait });
        return err({ code: 'login_throttled', retryAfterSeconds: wait });
      }
      const row = await byEmail(email);
      if (!row || row.disabled_at !== null) {
        await verifyPassword(await decoyPasswordHash(), password);
        await throttle.fail(attempt);
        return err({ code: 'invalid_credentials' });
      }
      if (!(await verifyPassword(row.password_hash, password))) {
        // Counted in the database, in one statement per counter: parallel wrong guesses all count.
        await throttle.fail(attempt);
        await record(row.id, 'staff.login_failed', context);
        return err({ code: 'invalid_credentials' });
      }
      await throttle.succeed(attempt);
      return ok(toStaff(row));
    },

    async setPassword(email, password, trx) {
      const on = trx ?? db;
      const weak = weakPassword(password, email);
      if (weak) return err(weak);
      const row = await byEmail(email, on);
      if (!row) return err({ code: 'staff_not_found', email });
      await on
        .updateTable('staff_users')
        .set({ password_hash: await hashPassword(password), updated_at: clock.now() })
        .where('id', '=', row.id)
        .execute();
      // Set by an operator with the CLI: whoever waited on this account may try the new password.
      await throttle.clearAccount('operator', row.email, trx);
      return ok(toStaff(row));
    },
  };
}
