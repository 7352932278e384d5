import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Environment, ReconciliationDifferenceKind, ReconciliationItem } from '../../db/schema.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { Acquirer } from '../acquirer/index.js';
import type { AuditLog } from '../audit/service.js';
import type { ClearingMovement } from '../ledger/service.js';

/** A charge or refund as reconciliation sees it: its owner, status and the acquirer's id. */
export interface ItemAtAcquirer {
  id: string;
  organizationId: string;
  status: string;
  providerId: string | null;
}

export interface ReconciliationDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** The acquirer of an environment; none for live until one is configured. */
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  ledger: {
    clearingMovements(environment: Environment, from: Date, to: Date): Promise<ClearingMovement[]>;
    clearingMovementsOf(
      kind: ClearingMovement['kind'],
      sourceIds: readonly string[],
    ): Promise<ClearingMovement[]>;
  };
  /** The charges module's lookups: by our ids, and by the acquirer's payment ids. */
  charges: {
    byIds(ids: readonly string[]): Promise<ItemAtAcquirer[]>;
    byProviderIds(provider: string, providerIds: readonly string[]): Promise<ItemAtAcquirer[]>;
  };
  /** The refunds module's lookups: by our ids, and by the acquirer's refund ids. */
  refunds: {
    byIds(ids: readonly string[]): Promise<ItemAtAcquirer[]>;
    byProviderIds(environment: Environment, providerIds: readonly string[]): Promise<ItemAtAcquirer[]>;
  };
  alerts: AlertRaiser;
  audit: AuditLog;
}

export type ReconciliationError =
  | { code: 'invalid_date'; message: string }
  | { code: 'not_over'; reportDate: string }
  | { code: 'acquirer_not_configured'; environment: Environment }
  | { code: 'acquirer_unavailable'; message: string };

export interface RunActor {
  actor: string;
  origin: 'schedule' | 'operator';
  requestId?: string | null | undefined;
  ip?: string | null | undefined;
}

export interface DifferenceView {
  kind: ReconciliationDifferenceKind;
  item: ReconciliationItem;
  providerId: string | null;
  gatewayId: string | null;
  organizationId: string | null;
  acquirerAmount: string | null;
  ledgerAmount: string | null;
  acquirerAt: string | null;
  ledgerAt: string | null;
}

export interface RunView {
  id: string;
  object: 'reconciliation_run';
  environment: Environment;
  reportDate: string;
  origin: 'schedule' | 'operator';
  status: 'matched' | 'differences';
  acquirer: { payments: number; refunds: number; net: string };
  ledger: { payments: number; refunds: number; net: string };
  differenceCount: number;
  runBy: string;
  createdAt: string;
}

export type RunDetail = RunView & { differences: DifferenceView[] };

/** What running a date answers: the run with its differences, or why it did not run. */
export type RunOutcome = Result<RunDetail, ReconciliationError>;
