import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment, PayoutSchedule, UserRole } from '../../db/schema.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { RenderedEmail } from '../email/templates.js';
import type { EventRecorder } from '../events/service.js';
import type { LedgerService } from '../ledger/service.js';
import type { RateQuote } from '../payouts/rates.js';
import type { PayoutService } from '../payouts/service.js';
import type { BusinessCalendar, BusinessDate } from '../../shared/business-calendar.js';
import type { SettlementService, SettlementSources } from './release-types.js';
import type { BatchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The daily batch's ports (what it needs of other modules, given in src/services.ts), its deps, and the
 * outcomes, reports and views its use cases answer with (batch.ts binds them).
 */

/** What the payout phase needs of the payouts module (given in src/services.ts). */
export interface BatchPayouts {
  quote(environment: Environment): Promise<Result<RateQuote, { code: string; reason?: string }>>;
  createAutomatic(
    trx: Trx,
    owner: Owner,
    options: { quote: RateQuote; description: string },
  ): Promise<
    | {
        ok: true;
        /** `rate.value`: the rate the payout was converted at (the market rate less the FX spread). */
        payout: { id: string; amount: string; payoutAmount: string; rate: { value: string } };
      }
    | { ok: false; reason: 'no_default_wallet' | 'below_minimum' | 'nothing_available'; minimum?: string }
  >;
}

/** What the payout phase needs of the organizations module (given in src/services.ts). */
export interface BatchOrganizations {
  /**
   * The frozen ones of these organizations, read under a share lock on their rows in the caller's
   * transaction (a freeze waits for it; after a freeze, it sees it).
   */
  frozen(trx: Trx, organizationIds: readonly string[]): Promise<Set<string>>;
}

/** What the batch needs of the ledger. */
export interface BatchLedger {
  ownersWithCredits(after: Date, upTo: Date): Promise<Owner[]>;
  lockedAvailable(trx: Trx, owner: Owner): Promise<string>;
}

/** What the chunk needs of the ledger. */
export type ChunkLedger = Pick<
  LedgerService,
  'lockBalances' | 'availableOf' | 'pendingCreditsOf' | 'postReleases'
>;

/** What the chunk needs of the payouts module. */
export type ChunkPayouts = Pick<PayoutService, 'planAutomatic' | 'createPlanned'>;

export interface BatchDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  settlement: Pick<SettlementService, 'release'>;
  payouts: BatchPayouts & ChunkPayouts;
  ledger: BatchLedger & ChunkLedger;
  events: EventRecorder;
  sources: SettlementSources;
  organizations: BatchOrganizations;
  audit: AuditLog;
  alerts: AlertRaiser;
  mailer: { enqueue(db: Kdb, to: string, email: RenderedEmail): Promise<string>; nudge(): void };
  team: {
    activeMemberEmails(trx: Trx, organizationId: string, roles: readonly UserRole[]): Promise<string[]>;
  };
  webUrl: () => string;
  cursors: CursorCodec;
  /** A business date's cutoff: the daily schedule's run on that date (03:00 UTC by default). */
  cutoffOf?: (businessDate: BusinessDate) => Date;
  calendar?: BusinessCalendar;
  /**
   * Chunks of owners (chunk.ts), then single owners, a run settles at once (`SETTLEMENT_CONCURRENCY`,
   * default 4): each takes only its own owners' locks, so they proceed side by side on the pool's
   * connections. 1 settles one after another.
   */
  concurrency?: number;
}

export type OwnerOutcome =
  /** `settled`: this call ended the batch's payout phase (false: it had ended before). */
  | { batch: BatchView; settled: boolean }
  /** Nothing new was credited, or refunds exceed the new credits: no batch. */
  | { batch: null; reason: 'nothing_to_release' | 'net_not_positive' };

export interface DayReport {
  businessDate: BusinessDate;
  /** Not a business day (weekend, Turkish public holiday or a declared closure): nothing ran. */
  skipped: boolean;
  owners: number;
  /** Batches this run paid out or carried. */
  paidOut: number;
  carried: number;
  /**
   * Batches waiting for a usable rate after this run, of the date or of an earlier one (the daily job
   * then runs the period again).
   */
  held: number;
  /**
   * Batches held because their organization is frozen (`organization_frozen`), of the date or of an
   * earlier one: the period is not run again for them; a later run pays them out once it is unfrozen.
   */
  frozen: number;
  /** Batches of the date (or open batches of an earlier one) that an earlier run had already ended. */
  unchanged: number;
  failed: number;
  /** Of `paidOut`, the owners a set-based chunk settled (chunk.ts); the others went one by one. */
  chunked: number;
  /**
   * Chunks that failed and were rolled back, their owners settled one by one instead: 0 on a healthy
   * run. Each is logged at error level; a non-zero figure means the set-based path is broken.
   */
  chunksFailed: number;
}

export interface StatementVerification {
  organizationId: string;
  environment: Environment;
  valid: boolean;
  /** Statements checked. */
  checked: number;
  /** Each statement that no longer matches, or a broken link; empty when valid. */
  problems: Array<{
    batchId: string;
    sequence: number;
    problem: 'content_changed' | 'chain_broken' | 'sequence_gap';
  }>;
}

export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** A date the next batch waits past: a weekend, a Turkish public holiday or an operator's closure. */
export interface SkippedDate {
  date: BusinessDate;
  kind: 'weekend' | 'holiday' | 'closure';
  /** The holiday's name or the closure's reason; empty for a weekend. */
  name: string;
}

export interface NextBatchView {
  businessDate: BusinessDate;
  /** The cutoff of that business date (03:00 UTC by default), ISO 8601. */
  cutoff: string;
  /** The dates from today to `businessDate` (exclusive) on which no batch runs, in order. */
  skipped: SkippedDate[];
  schedule: PayoutSchedule;
  /**
   * `net`: what the batch would release were `pending` (when positive) released at its cutoff; the
   * rolling reserve (`reserveBps` for `days` days) holds back `held` of it, and `released` of earlier
   * reserves falls due by that date; `toAvailable` = net - held + released. TRY minor units.
   */
  expected: { net: string; held: string; released: string; toAvailable: string };
  reserve: { reserveBps: number; days: number };
  /** The owner's batches waiting for a usable TRY to USDT rate (payout phase retried). */
  heldBatches: BatchView[];
}

export interface ClosureView {
  businessDate: string;
  reason: string;
  declaredBy: string;
  createdAt: string;
}

export type SettlementCommandError =
  | { code: 'not_a_business_day'; businessDate: string; why: string }
  | { code: 'not_due'; businessDate: string; cutoff: string }
  | { code: 'invalid_date'; message: string }
  | { code: 'closure_not_found' }
  | { code: 'organization_not_found' }
  | { code: 'closure_exists' }
  | { code: 'reason_required' };
