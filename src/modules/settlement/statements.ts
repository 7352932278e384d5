import { err, ok, type Result } from '../../shared/result.js';
import type { BatchDeps, StatementVerification } from './batch-types.js';
import type { BatchRow, ItemRow } from './model.js';
import * as settlement from './repository.js';
import { statementContent, statementHash, type Statement } from './statement.js';
import type { Owner } from '../../shared/owner.js';

/**
 * An owner's recorded statements, read back and verified: each rebuilt from its batch's stored row and
 * items with the hash recorded when the batch ended (the content and the hash: statement.ts).
 */

/**
 * The statement of an ended batch, rebuilt from its stored release and items with the hash recorded
 * when it ended; `not_ready` while its payout phase is open.
 */
export async function batchStatement(
  deps: BatchDeps,
  owner: Owner,
  id: string,
): Promise<Result<Statement, { code: 'not_found' | 'not_ready' }>> {
  const { db } = deps;
  const row = await settlement.findOwnBatch(db, owner, id);
  if (!row) return err({ code: 'not_found' as const });
  if (row.statement_seq === null || row.statement_hash === null) return err({ code: 'not_ready' as const });
  const content = storedContent(
    row,
    await settlement.itemsOfBatch(db, row.id),
    await settlement.reserveReleasesIn(db, row.id),
  );
  return ok({
    object: 'settlement_statement' as const,
    ...content,
    previousHash: row.previous_hash,
    hash: row.statement_hash,
  });
}

/**
 * Recomputes every statement of the owner's chain from the stored rows and checks each against the hash
 * recorded when its batch ended and against the previous link.
 */
export async function verifyStatements(deps: BatchDeps, owner: Owner): Promise<StatementVerification> {
  const { db } = deps;
  const problems: StatementVerification['problems'] = [];
  let checked = 0;
  let previous: { seq: number; hash: string } | undefined;
  for (;;) {
    const rows = await settlement.endedBatches(db, owner, previous?.seq ?? 0, 200);
    if (rows.length === 0) break;
    for (const row of rows) {
      const sequence = row.statement_seq ?? 0;
      checked += 1;
      if (sequence !== (previous?.seq ?? 0) + 1)
        problems.push({ batchId: row.id, sequence, problem: 'sequence_gap' });
      if ((row.previous_hash ?? null) !== (previous?.hash ?? null))
        problems.push({ batchId: row.id, sequence, problem: 'chain_broken' });
      const content = storedContent(
        row,
        await settlement.itemsOfBatch(db, row.id),
        await settlement.reserveReleasesIn(db, row.id),
      );
      if (statementHash(row.previous_hash, content) !== row.statement_hash)
        problems.push({ batchId: row.id, sequence, problem: 'content_changed' });
      previous = { seq: sequence, hash: row.statement_hash ?? '' };
    }
  }
  return { ...owner, valid: problems.length === 0, checked, problems };
}

/** The content of an ended batch's statement, rebuilt from what its row and items hold now. */
function storedContent(
  row: BatchRow,
  items: readonly ItemRow[],
  releases: ReadonlyArray<{ batch_id: string; amount: string }>,
) {
  return statementContent(
    row,
    {
      status: row.status === 'paid_out' ? 'paid_out' : 'carried',
      carryReason: row.carry_reason,
      rate:
        row.rate !== null && row.rate_source !== null && row.rate_at !== null
          ? { value: row.rate, source: row.rate_source, at: row.rate_at }
          : null,
      payout:
        row.payout_id !== null
          ? { id: row.payout_id, amount: row.payout_amount ?? '', payoutAmount: row.payout_usdt ?? '' }
          : null,
      sequence: row.statement_seq ?? 0,
    },
    items,
    releases,
  );
}
