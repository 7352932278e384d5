import { err, ok, type Result } from '../../shared/result.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import type { Actor } from '../organizations/types.js';
import type { WalletError } from '../wallets/errors.js';
import type { WalletChangeView } from '../wallets/schemas.js';
import type { WalletService } from '../wallets/service.js';
import { REASON_MAX_LENGTH } from './command-input.js';

/**
 * The operator's wallet commands, beside `commands.ts`: the console, the operator API
 * and the CLI call these; each is audited in the wallets module's transaction.
 */
export interface WalletOperatorCommands {
  cancelWalletChange(id: string, reason: string, by: Actor): Promise<Result<WalletChangeView, WalletError>>;
  setWalletCooldown(
    organizationId: string,
    cooldownHours: number,
    by: Actor,
  ): Promise<
    Result<
      { organizationId: string; cooldownHours: number },
      WalletError | { code: 'organization_not_found' }
    >
  >;
}

export function createWalletOperatorCommands(deps: {
  wallets: Pick<WalletService, 'operatorCancel' | 'setCooldown'>;
  organizations: Pick<OrganizationAdminService, 'get'>;
}): WalletOperatorCommands {
  return {
    async cancelWalletChange(id, reason, by) {
      const trimmed = reason.trim();
      if (trimmed === '' || trimmed.length > REASON_MAX_LENGTH) return err({ code: 'reason_required' });
      return deps.wallets.operatorCancel(id, trimmed, by);
    },
    async setWalletCooldown(organizationId, cooldownHours, by) {
      const organization = await deps.organizations.get(organizationId);
      if (!organization.ok) return err({ code: 'organization_not_found' });
      const set = await deps.wallets.setCooldown(organizationId, cooldownHours, by);
      return set.ok ? ok(set.value) : set;
    },
  };
}
