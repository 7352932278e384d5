import type { Page } from '../../shared/cursor-page.js';
import type { Result } from '../../shared/result.js';
import type { BinDeps } from './deps.js';
import type { BinError } from './errors.js';
import { importBins } from './import.js';
import { lookupBin } from './lookup.js';
import { getBin, listBins } from './reads.js';
import type { BinActor, BinImportView, BinInfo, BinListFilter, BinRowView } from './types.js';

/**
 * The gateway's one BIN table (docs/risk.md, "The BIN table"): what the risk engine, acquirer routing
 * and instalments know of a card from its first digits, and the operator's rows behind it.
 */
export interface BinService {
  /**
   * The card's scheme, issuing country, issuer, funding, category and programme from its first 6 to 8
   * digits (pass the first 8 where the number has them): the row of the longest prefix they begin with,
   * else the scheme by the rules and the rest `unknown`. One indexed statement, no cache: a load is seen
   * at once by every process.
   */
  lookup(bin: string): Promise<BinInfo>;
  /** The rows in prefix order, filtered by a prefix they begin with, a country and a scheme. */
  list(
    filter: BinListFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<Page<BinRowView>, BinError>>;
  /** The row of exactly this prefix. */
  get(prefix: string): Promise<Result<BinRowView, BinError>>;
  /** Loads a BIN file (CSV): all of it, upserted by prefix and audited, or nothing and every problem. */
  import(csv: string, by: BinActor): Promise<Result<BinImportView, BinError>>;
}

export function createBinService(deps: BinDeps): BinService {
  return {
    lookup: (bin) => lookupBin(deps.db, bin),
    list: (filter, page) => listBins(deps, filter, page),
    get: (prefix) => getBin(deps, prefix),
    import: (csv, by) => importBins(deps, csv, by),
  };
}
