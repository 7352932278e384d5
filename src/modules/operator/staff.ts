import { sql, type Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { StaffRole, StaffUsersTable } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  decoyPasswordHash,
  hashPassword,
  LOCKOUT,
  passwordProblem,
  verifyPassword,
} from '../../shared/passwords.js';

export const STAFF_ROLES: readonly StaffRole[] = ['admin', 'underwriter', 'support'];

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

export interface StaffService {
  create(input: { email: string; name: string; role: StaffRole; password: string }): Promise<Staff>;
  get(id: string): Promise<Staff | undefined>;
  count(): Promise<number>;
  /** The staff member, or 401 `invalid_credentials` (the same for an unknown address), or 423 while locked. */
  authenticate(email: string, password: string): Promise<Staff>;
  setPassword(email: string, password: string): Promise<void>;
}

export function createStaffService(deps: { db: Kdb; clock: Clock }): StaffService {
  const { db, clock } = deps;
  const byEmail = (email: string) =>
    db
      .selectFrom('staff_users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
      .executeTakeFirst();

  const checkPassword = (password: string, email: string) => {
    const problem = passwordProblem(password, email);
    if (problem)
      throw ApiError.validation([{ path: 'password', in: 'body', code: 'invalid_value', message: problem }]);
  };

  return {
    async create({ email, name, role, password }) {
      checkPassword(password, email);
      if (await byEmail(email)) {
        throw ApiError.validation([
          { path: 'email', in: 'body', code: 'invalid_value', message: 'is already a staff account' },
        ]);
      }
      const now = clock.now();
      const row = await db
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
      return toStaff(row);
    },

    async get(id) {
      const row = await db
        .selectFrom('staff_users')
        .selectAll()
        .where('id', '=', id)
        .where('disabled_at', 'is', null)
        .executeTakeFirst();
      return row ? toStaff(row) : undefined;
    },

    async count() {
      const row = await db
        .selectFrom('staff_users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async authenticate(email, password) {
      const row = await byEmail(email);
      const now = clock.now();
      if (!row || row.disabled_at !== null) {
        await verifyPassword(await decoyPasswordHash(), password);
        throw new ApiError('invalid_credentials', 'The e-mail address or password is wrong.');
      }
      if (row.locked_until !== null && row.locked_until > now) {
        throw new ApiError('account_locked', 'Too many failed attempts; the account is locked for a while.');
      }
      if (!(await verifyPassword(row.password_hash, password))) {
        // Counted in the database, in one statement: parallel wrong guesses cannot overwrite each
        // other's count (a read-then-write here let any number of parallel guesses count as one).
        const lockUntil = new Date(now.getTime() + LOCKOUT.lockMs);
        await db
          .updateTable('staff_users')
          .set({
            failed_logins: sql<number>`CASE WHEN failed_logins + 1 >= ${LOCKOUT.maxFailures} THEN 0 ELSE failed_logins + 1 END`,
            locked_until: sql<Date | null>`CASE WHEN failed_logins + 1 >= ${LOCKOUT.maxFailures} THEN ${lockUntil}::timestamptz ELSE locked_until END`,
          })
          .where('id', '=', row.id)
          .execute();
        throw new ApiError('invalid_credentials', 'The e-mail address or password is wrong.');
      }
      if (row.failed_logins > 0 || row.locked_until !== null) {
        await db
          .updateTable('staff_users')
          .set({ failed_logins: 0, locked_until: null })
          .where('id', '=', row.id)
          .execute();
      }
      return toStaff(row);
    },

    async setPassword(email, password) {
      checkPassword(password, email);
      const row = await byEmail(email);
      if (!row) throw new ApiError('not_found', `No staff account ${email}.`);
      await db
        .updateTable('staff_users')
        .set({
          password_hash: await hashPassword(password),
          failed_logins: 0,
          locked_until: null,
          updated_at: clock.now(),
        })
        .where('id', '=', row.id)
        .execute();
    },
  };
}
