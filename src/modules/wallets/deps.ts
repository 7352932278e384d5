import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { UserRole } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import type { EventRecorder } from '../events/service.js';

/** What the wallets module needs of the users module: who hears of changes, and the 2FA check. */
export interface WalletTeam {
  activeMemberEmails(trx: Trx, organizationId: string, roles: readonly UserRole[]): Promise<string[]>;
  verifySecondFactor(
    trx: Trx,
    userId: string,
    code: string,
    context: { ip: string | null; requestId: string | null },
  ): Promise<boolean>;
}

export interface WalletServiceDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  audit: AuditLog;
  mailer: EmailService;
  events: EventRecorder;
  team: WalletTeam;
  /** The web listener's base URL: the confirmation links and the dashboard. */
  webUrl: () => string;
  /** WALLET_CHANGE_COOLDOWN_HOURS, in seconds: the cool-down of an organization without its own. */
  defaultCooldownSeconds: number;
  /** How long the e-mailed confirmation link lives. */
  confirmTtlMs: number;
}
