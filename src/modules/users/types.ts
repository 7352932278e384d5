import type { UserRole } from '../../db/schema.js';
import type { Result } from '../../shared/result.js';
import type { Organization } from '../organizations/types.js';
import type { UserError } from './errors.js';
import type { UserRow } from './repository.js';

// The shapes the account use cases take and answer with (and the service's interface names).

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

/** A password reset's answer: whose password it set, and how many of their sessions it ended. */
export interface PasswordReset {
  userId: string;
  sessionsEnded: number;
}

export interface TotpEnrollment {
  secret: string;
  otpauthUri: string;
  qrCodeDataUrl: string;
}
