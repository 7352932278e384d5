import type { UserRole } from '../../db/schema.js';
import type { WalletChangeView, WalletView } from './schemas.js';

// The shapes the wallet use cases take and answer with (and the service's interface names).

/** Who acts, for the audit log: `key:key_…`, `user:usr_…`, `staff:stf_…`, `cli` or `system`. */
export interface WalletActor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** The signed-in owner confirming a change from the e-mailed link. */
export interface Confirmer {
  id: string;
  organizationId: string;
  role: UserRole;
  totp: 'off' | 'pending' | 'on';
}

export type ConfirmationView =
  { state: 'valid'; change: WalletChangeView; wallet: WalletView } | { state: 'used' } | { state: 'invalid' };

export type ConfirmRefusal = {
  code: 'invalid_link' | 'used_link' | 'other_organization' | 'not_owner' | 'code_required' | 'wrong_code';
};
