import type { Trx } from '../../db/database.js';
import type { Owner } from '../../shared/owner.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { FileAttachError } from './errors.js';
import { lockFiles, nameDispute } from './repository.js';

/**
 * Names `disputeId` on the owner's files of `ids`, in the caller's transaction (the one that records the
 * evidence). Each file serves one dispute: a file another dispute names is `file_in_use`, an id the owner
 * has no file of `file_not_found`; on either nothing is written. The files' rows stay locked until the
 * caller's transaction ends, so two disputes cannot take the same file at once.
 */
export async function attachToDispute(
  trx: Trx,
  owner: Owner,
  ids: readonly string[],
  disputeId: string,
): Promise<Result<{ attached: string[] }, FileAttachError>> {
  const wanted = [...new Set(ids)];
  const rows = new Map((await lockFiles(trx, owner, wanted)).map((row) => [row.id, row]));
  const missing = wanted.filter((id) => !rows.has(id));
  if (missing.length > 0) return err({ code: 'file_not_found', ids: missing });
  const inUse = wanted.filter((id) => {
    const named = rows.get(id)?.dispute_id;
    return named !== null && named !== undefined && named !== disputeId;
  });
  if (inUse.length > 0) return err({ code: 'file_in_use', ids: inUse });
  await nameDispute(trx, owner, wanted, disputeId);
  return ok({ attached: wanted });
}
