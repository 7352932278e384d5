import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Owner } from '../../shared/owner.js';
import type { Result } from '../../shared/result.js';
import type { Acquirer } from '../acquirer/types.js';
import type { ChargeRow } from '../charges/model.js';
import type { EventRecorder } from '../events/service.js';
import type { DisputeEntryForLedger, DisputeEntryKind } from '../ledger/disputes.js';
import type { EntryLines } from '../ledger/index.js';

/** What disputes need of the ledger (src/modules/ledger), in the caller's transaction. */
export interface DisputeLedger {
  postDisputeEntry(
    trx: Trx,
    item: DisputeEntryForLedger,
  ): Promise<{ created: boolean; pendingAfter: string }>;
  /** The fee a `dispute_fee` entry of this source took, or undefined when none was posted. */
  disputeFeeOf(trx: Trx, sourceId: string): Promise<bigint | undefined>;
  /** The owner's entries of these (kind, source) pairs, oldest first (a dispute's `ledgerEntries`). */
  entriesOf?(
    owner: Owner,
    sources: ReadonlyArray<{ kind: DisputeEntryKind; sourceId: string }>,
  ): Promise<EntryLines[]>;
}

/** What disputes need of charges (the charges module owns that table). */
export interface DisputeCharges {
  /** The owner's created charge, or undefined. */
  findVisible(owner: Owner, id: string): Promise<ChargeRow | undefined>;
  /** The owner's charge under its row lock, in the caller's transaction: taken before a dispute row's. */
  lockVisible(trx: Trx, owner: Owner, id: string): Promise<ChargeRow | undefined>;
  /** Charges by id, in any owner: the caller filtered the ids by owner already. */
  byIds(ids: readonly string[]): Promise<Map<string, ChargeRow>>;
}

/** What disputes need of uploaded files (src/modules/files): an evidence's files checked, then attached. */
export interface DisputeFiles {
  /** The owner's files of `ids` (unknown ids left out). */
  describe(
    db: Kdb | Trx,
    owner: Owner,
    ids: readonly string[],
  ): Promise<Array<{ id: string; size: number; disputeId: string | null }>>;
  /** Names the dispute on the files, in the caller's transaction. */
  attachToDispute(
    trx: Trx,
    owner: Owner,
    ids: readonly string[],
    disputeId: string,
  ): Promise<Result<{ attached: string[] }, { code: string; ids: string[] }>>;
}

/** The default dispute fee (TRY minor units per stage) when an organization has no `dispute_fee_schedules` row. */
export const DEFAULT_DISPUTE_FEE_MINOR = 25_000n;

export interface DisputeServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads and lists (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  charges: DisputeCharges;
  ledger: DisputeLedger;
  events: EventRecorder;
  alerts: AlertRaiser;
  /** Evidence files; without it, a `files` id is checked by its form only. */
  files?: DisputeFiles;
}
