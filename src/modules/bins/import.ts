import { createHash } from 'node:crypto';
import { err, ok, type Result } from '../../shared/result.js';
import { entryAbout } from '../audit/service.js';
import { BIN_CSV_MAX_BYTES, parseBinCsv } from './csv.js';
import type { BinDeps } from './deps.js';
import type { BinError } from './errors.js';
import * as bins from './repository.js';
import type { BinActor, BinImportView } from './types.js';

/**
 * Loads a BIN file (`csv.ts`): every line checked first, and a file with any problem loads nothing;
 * then every row upserted by its prefix and the load audited (`bin_table.imported`: the counts and the
 * file's SHA-256), in one transaction.
 */
export async function importBins(
  deps: BinDeps,
  text: string,
  by: BinActor,
): Promise<Result<BinImportView, BinError>> {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > BIN_CSV_MAX_BYTES) return err({ code: 'csv_too_large' });
  const parsed = parseBinCsv(text);
  if (!parsed.ok) return err({ code: 'invalid_csv', issues: parsed.issues, problems: parsed.problems });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return deps.db.transaction().execute(async (trx) => {
    const { inserted, updated } = await bins.upsert(trx, parsed.rows, by.actor, deps.clock.now());
    const view: BinImportView = {
      rows: parsed.rows.length,
      inserted,
      updated,
      unchanged: parsed.rows.length - inserted - updated,
      sha256,
    };
    await deps.audit.record(
      trx,
      entryAbout(
        { actor: by.actor, requestId: by.requestId ?? null, ip: by.ip ?? null },
        'bin_table.imported',
        { type: 'bin_table', id: 'card_bins' },
        { after: { ...view, bytes: bytes.length } },
      ),
    );
    return ok(view);
  });
}
