import type { Trx } from '../../db/database.js';
import type { ValidationIssue } from '../../http/errors.js';
import type { Owner } from '../../shared/owner.js';
import { MAX_DISPUTE_FILES_BYTES } from '../files/index.js';
import type { DisputeFiles } from './deps.js';
import type { DisputeRow } from './model.js';

/**
 * The files an evidence names (uploaded with `POST /v1/files`): each the owner's and no other dispute's,
 * and all the dispute's files, those sent for earlier stages included, within MAX_DISPUTE_FILES_BYTES.
 */
export async function fileIssues(
  files: DisputeFiles,
  trx: Trx,
  owner: Owner,
  row: DisputeRow,
  ids: readonly string[],
): Promise<ValidationIssue[]> {
  const earlier = row.submissions.flatMap((submission) => submission.evidence.files ?? []);
  const all = [...new Set([...earlier, ...ids])];
  const found = new Map((await files.describe(trx, owner, all)).map((file) => [file.id, file]));
  const issues: ValidationIssue[] = [];
  ids.forEach((id, index) => {
    const file = found.get(id);
    const path = `files[${index}]`;
    if (!file) issues.push({ path, in: 'body', code: 'invalid_value', message: 'is not a file of yours' });
    else if (file.disputeId !== null && file.disputeId !== row.id)
      issues.push({ path, in: 'body', code: 'invalid_value', message: 'is evidence of another dispute' });
  });
  const total = [...found.values()].reduce((sum, file) => sum + file.size, 0);
  if (issues.length === 0 && total > MAX_DISPUTE_FILES_BYTES)
    issues.push({
      path: 'files',
      in: 'body',
      code: 'too_large',
      message: `the dispute's files come to ${total} bytes; at most ${MAX_DISPUTE_FILES_BYTES} (20 MiB)`,
    });
  return issues;
}

/** Names the dispute on the files its evidence sent, in the transaction that records the submission. */
export async function attachFiles(
  files: DisputeFiles | undefined,
  trx: Trx,
  owner: Owner,
  row: DisputeRow,
  ids: readonly string[] | undefined,
  log: (detail: object, message: string) => void,
): Promise<void> {
  if (!files || ids === undefined || ids.length === 0) return;
  const attached = await files.attachToDispute(trx, owner, ids, row.id);
  // Checked when staged; a file taken since by another dispute was still sent to the acquirer.
  if (!attached.ok) log({ disputeId: row.id, refused: attached.error }, 'evidence files not attached');
}
