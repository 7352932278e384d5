import type { Kdb } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { StaffRole } from '../../db/schema.js';
import type { SessionManager } from '../../http/session.js';
import { err, ok } from '../../shared/result.js';
import { entryAbout, type AuditLog } from '../audit/service.js';
import type { Actor } from '../organizations/types.js';
import type { Answer } from './command-input.js';
import type { Staff, StaffService } from './staff.js';

type StaffCommandDeps = { db: Kdb; audit: AuditLog; staff: StaffService };

export const createStaff = (
  { db, audit, staff }: StaffCommandDeps,
  input: { email: string; name: string; role: StaffRole; password: string },
  by: Actor,
): Answer<Staff> =>
  db
    .transaction()
    .execute(async (trx): Answer<Staff> => {
      const created = await staff.create(input, trx);
      if (!created.ok) return created;
      const after = { email: created.value.email, role: created.value.role };
      await audit.record(
        trx,
        entryAbout(by, 'staff.created', { type: 'staff', id: created.value.id }, { after }),
      );
      return created;
    })
    // Two creations of one address at once both pass the service's look-up; the index decides.
    .catch((error: unknown): Awaited<Answer<Staff>> => {
      if (isUniqueViolation(error, 'staff_users_email_idx')) return err({ code: 'staff_email_taken' });
      throw error;
    });

export async function setStaffPassword(
  deps: StaffCommandDeps & { sessions: Pick<SessionManager, 'endAll'> },
  { email, password }: { email: string; password: string },
  by: Actor,
): Answer<{ staff: Staff; sessionsEnded: number }> {
  const { db, audit, staff } = deps;
  const changed = await db.transaction().execute(async (trx): Answer<Staff> => {
    const set = await staff.setPassword(email, password, trx);
    if (!set.ok) return set;
    await audit.record(trx, entryAbout(by, 'staff.password_set', { type: 'staff', id: set.value.id }));
    return set;
  });
  if (!changed.ok) return changed;
  // Whoever held a session with the old password holds it no longer.
  const sessionsEnded = await deps.sessions.endAll('operator', changed.value.id);
  return ok({ staff: changed.value, sessionsEnded });
}
