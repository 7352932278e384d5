import type { Kdb } from '../../db/database.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { Owner } from '../../shared/owner.js';
import type { DisputeEntryKind } from '../ledger/disputes.js';
import type { DisputeServiceDeps } from './deps.js';
import type { DisputeError } from './errors.js';
import { feeSourceOf, type DisputeRow } from './model.js';
import * as disputes from './repository.js';
import type { DisputeDetail } from './schemas.js';
import {
  disputeAlertView,
  disputeChargeOf,
  disputeView,
  fraudWarningView,
  type DisputeAlertView,
  type DisputeCharge,
  type FraudWarningView,
} from './views.js';

/** The merchant's reads of one dispute, early fraud warning or pre-dispute alert (issue 37 item 4). */

export type ReadDeps = Pick<DisputeServiceDeps, 'db' | 'readDb' | 'charges' | 'ledger'>;

const readerOf = (deps: ReadDeps): Kdb => deps.readDb ?? deps.db;

/** What a view says of each row's charge, by charge id (the rows are the owner's, so are their charges). */
export async function chargesOf(
  deps: Pick<DisputeServiceDeps, 'charges'>,
  rows: ReadonlyArray<{ charge_id: string }>,
): Promise<Map<string, DisputeCharge>> {
  const charges = await deps.charges.byIds(rows.map((row) => row.charge_id));
  return new Map([...charges].map(([id, charge]) => [id, disputeChargeOf(charge)]));
}

/** The summary of a charge that was not found: never expected, a dispute's charge is never deleted. */
export const chargeIn = (charges: Map<string, DisputeCharge>, chargeId: string): DisputeCharge =>
  charges.get(chargeId) ?? { id: chargeId, merchantReference: '', metadata: null };

/** The ledger sources of what a dispute caused: each funds movement, and each stage's fee and its return. */
function ledgerSourcesOf(row: DisputeRow): Array<{ kind: DisputeEntryKind; sourceId: string }> {
  const sources: Array<{ kind: DisputeEntryKind; sourceId: string }> = row.movements.map((movement) => ({
    kind: movement.type === 'funds_withdrawn' ? 'dispute_funds_withdrawn' : 'dispute_funds_reinstated',
    sourceId: movement.id,
  }));
  for (const stage of ['chargeback', 'pre_arbitration'] as const) {
    const sourceId = feeSourceOf(row.id, stage);
    sources.push({ kind: 'dispute_fee', sourceId }, { kind: 'dispute_fee_returned', sourceId });
  }
  return sources;
}

export async function getDispute(
  deps: ReadDeps,
  owner: Owner,
  id: string,
): Promise<Result<DisputeDetail, DisputeError>> {
  const row = await disputes.findDispute(readerOf(deps), owner, id);
  if (!row) return err({ code: 'dispute_not_found' });
  const [charges, entries] = await Promise.all([
    chargesOf(deps, [row]),
    deps.ledger.entriesOf?.(owner, ledgerSourcesOf(row)) ?? [],
  ]);
  return ok({
    ...disputeView(row, chargeIn(charges, row.charge_id)),
    ledgerEntries: entries.map((entry) => ({
      id: entry.id,
      kind: entry.kind as DisputeEntryKind,
      sourceId: entry.sourceId,
      currency: entry.currency,
      createdAt: entry.createdAt.toISOString(),
      postings: entry.postings,
    })),
  });
}

export async function getFraudWarning(
  deps: ReadDeps,
  owner: Owner,
  id: string,
): Promise<Result<FraudWarningView, DisputeError>> {
  const row = await disputes.findFraudWarning(readerOf(deps), owner, id);
  if (!row) return err({ code: 'fraud_warning_not_found' });
  return ok(fraudWarningView(row, chargeIn(await chargesOf(deps, [row]), row.charge_id)));
}

export async function getDisputeAlert(
  deps: ReadDeps,
  owner: Owner,
  id: string,
): Promise<Result<DisputeAlertView, DisputeError>> {
  const row = await disputes.findAlert(readerOf(deps), owner, id);
  if (!row) return err({ code: 'dispute_alert_not_found' });
  return ok(disputeAlertView(row, chargeIn(await chargesOf(deps, [row]), row.charge_id)));
}
