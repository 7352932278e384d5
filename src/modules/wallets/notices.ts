import type { Trx } from '../../db/database.js';
import { walletChangeEmail, type WalletChangeStep } from '../email/templates.js';
import type { WalletChangeRow, WalletRow } from './model.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';

// Who hears of a wallet or a change: the audit log and the e-mails to the team.

export const CONFIRM_PATH = '/dashboard/wallet-changes/confirm';

export function auditEntry(
  deps: WalletServiceDeps,
  trx: Trx,
  by: WalletActor,
  action: string,
  target: WalletChangeRow | WalletRow,
  after: unknown,
) {
  return deps.audit.record(trx, {
    actor: by.actor,
    action,
    targetType: target.id.startsWith('wch_') ? 'wallet_change' : 'wallet',
    targetId: target.id,
    organizationId: target.organization_id,
    after,
    requestId: by.requestId ?? null,
    ip: by.ip ?? null,
  });
}

/** Every owner and admin hears of each step; at the request, owners get the confirmation link. */
export async function notify(
  deps: WalletServiceDeps,
  trx: Trx,
  step: WalletChangeStep,
  change: WalletChangeRow,
  wallet: WalletRow,
  token?: string,
): Promise<void> {
  const base = {
    step,
    kind: change.kind,
    makeDefault: change.make_default,
    network: wallet.network,
    address: wallet.address,
    changeId: change.id,
    dashboardUrl: `${deps.webUrl()}/dashboard/wallets`,
    ...(change.effective_at ? { effectiveAt: change.effective_at } : {}),
    ...(change.confirm_expires_at ? { confirmExpiresAt: change.confirm_expires_at } : {}),
  };
  const owners = await deps.team.activeMemberEmails(trx, change.organization_id, ['owner']);
  const admins = await deps.team.activeMemberEmails(trx, change.organization_id, ['admin']);
  const confirmUrl = token === undefined ? undefined : `${deps.webUrl()}${CONFIRM_PATH}/${token}`;
  for (const to of owners) {
    await deps.mailer.enqueue(trx, to, walletChangeEmail({ ...base, ...(confirmUrl ? { confirmUrl } : {}) }));
  }
  for (const to of admins) await deps.mailer.enqueue(trx, to, walletChangeEmail(base));
}

/** Once the transaction has committed: the mailer sends what it queued. */
export function nudgeAfter<T>(deps: WalletServiceDeps, result: T): T {
  deps.mailer.nudge();
  return result;
}
