import type { Kdb } from '../../db/database.js';
import { findUserByEmail, findUserById, listOrganizationUsers } from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { Account, DashboardUser } from './types.js';
import { toUser } from './views.js';

/** Whether a dashboard account (any organization, any status) uses this address, case-insensitively. */
export async function hasAccount(dbOrTrx: Kdb, email: string): Promise<boolean> {
  return (await findUserByEmail(dbOrTrx, email)) !== undefined;
}

export async function account(deps: UserServiceDeps, userId: string): Promise<Account | undefined> {
  const row = await findUserById(deps.db, userId);
  if (!row) return undefined;
  const organization = await deps.organizations.find(row.organization_id);
  if (!organization) return undefined;
  return { user: toUser(row), organization };
}

/** The organization's members. */
export async function team(deps: UserServiceDeps, organizationId: string): Promise<DashboardUser[]> {
  return (await listOrganizationUsers(deps.db, organizationId)).map(toUser);
}
