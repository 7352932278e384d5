import type { Kdb } from '../../db/database.js';
import { hashPassword } from '../../shared/passwords.js';
import { issueApiKey, type IssuedApiKey } from '../api-keys/issue.js';
import { issueToken, liveToken, redeemToken } from './account-links.js';
import { record } from './audit.js';
import { insertInvitedUser, retireAccountTokens } from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { RequestContext, TokenView, UserResult } from './types.js';

// An approved application's owner account: created invited, activated from its link (or, for a demo
// merchant, with a password at once).

export async function createOwnerUser(
  deps: UserServiceDeps,
  dbOrTrx: Kdb,
  input: { organizationId: string; email: string; name: string },
): Promise<{ userId: string }> {
  const now = deps.clock.now();
  const row = await insertInvitedUser(
    dbOrTrx,
    { organizationId: input.organizationId, email: input.email.trim(), name: input.name, role: 'owner' },
    now,
  );
  return { userId: row.id };
}

export async function createActivation(
  deps: UserServiceDeps,
  dbOrTrx: Kdb,
  { userId }: { userId: string },
): Promise<{ url: string }> {
  return { url: await issueToken(deps, dbOrTrx, userId, 'activation') };
}

export async function activateWithPassword(
  deps: UserServiceDeps,
  dbOrTrx: Kdb,
  { userId, password }: { userId: string; password: string },
): Promise<void> {
  const now = deps.clock.now();
  await dbOrTrx
    .updateTable('users')
    .set({ password_hash: await hashPassword(password), status: 'active', updated_at: now })
    .where('id', '=', userId)
    .execute();
  await retireAccountTokens(dbOrTrx, userId, 'activation', now);
}

/** What a link shows before it is used. */
export async function inspectToken(
  deps: UserServiceDeps,
  kind: 'activation' | 'invitation' | 'password_reset',
  token: string,
): Promise<TokenView> {
  const found = await liveToken(deps, kind, token);
  if (found.state !== 'valid') return found;
  const organization = await deps.organizations.find(found.user.organization_id);
  return {
    state: 'valid',
    email: found.user.email,
    role: found.user.role,
    organizationName: organization?.name ?? '',
  };
}

/** The owner uses the activation link: a password, an active account and the first live key. */
export function activate(
  deps: UserServiceDeps,
  { token, password }: { token: string; password: string },
  context: RequestContext,
): Promise<UserResult<{ userId: string; email: string; liveKey: IssuedApiKey }>> {
  return redeemToken(
    deps,
    'activation',
    token,
    password,
    { failed_logins: 0, locked_until: null },
    async (trx, user) => {
      const liveKey = await issueApiKey(trx, deps.clock, {
        organizationId: user.organization_id,
        environment: 'live',
        scopes: ['all'],
        createdBy: 'system',
        name: 'First live key',
      });
      await record(deps, trx, user, 'user.activated', context);
      await record(deps, trx, user, 'api_key.created', context, {
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
  );
}
