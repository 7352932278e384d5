import type { UserRow } from './repository.js';
import type { DashboardUser } from './types.js';

export function toUser(row: UserRow): DashboardUser {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    totp: row.totp_enabled_at !== null ? 'on' : row.totp_secret_enc !== null ? 'pending' : 'off',
    createdAt: row.created_at,
  };
}
