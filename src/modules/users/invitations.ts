import { isUniqueViolation } from '../../db/errors.js';
import type { UserRole } from '../../db/schema.js';
import { ok } from '../../shared/result.js';
import { invitationEmail } from '../email/templates.js';
import { issueToken, redeemToken } from './account-links.js';
import { record } from './audit.js';
import { fail } from './errors.js';
import { findUserByEmail, findUserById, insertInvitedUser } from './repository.js';
import { INVITABLE_ROLES, userMay } from './roles.js';
import type { UserServiceDeps } from './deps.js';
import type { RequestContext, UserResult } from './types.js';

/** An owner or admin invites a teammate: an invited account and a single-use link by e-mail. */
export async function invite(
  deps: UserServiceDeps,
  actorId: string,
  input: { email: string; role: UserRole; name: string | null },
  context: RequestContext,
): Promise<UserResult<{ userId: string }>> {
  const { db, clock, mailer } = deps;
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
        : await insertInvitedUser(
            trx,
            { organizationId: actor.organization_id, email, name: input.name, role: input.role },
            now,
          );
      const url = await issueToken(deps, trx, invitee.id, 'invitation');
      await mailer.enqueue(
        trx,
        invitee.email,
        invitationEmail({ organizationName: organization.name, role: input.role, url }),
      );
      await record(deps, trx, actor, 'user.invited', context, {
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
}

/** The invitee uses the link: a password (and a name), and the account is active. */
export function acceptInvitation(
  deps: UserServiceDeps,
  { token, password, name }: { token: string; password: string; name: string },
  context: RequestContext,
): Promise<UserResult<{ userId: string; email: string }>> {
  return redeemToken(
    deps,
    'invitation',
    token,
    password,
    name.trim() !== '' ? { name: name.trim() } : {},
    async (trx, user) => {
      await record(deps, trx, user, 'user.invitation_accepted', context, { after: { role: user.role } });
      return { userId: user.id, email: user.email };
    },
  );
}
