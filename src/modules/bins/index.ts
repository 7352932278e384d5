export { BIN_CSV_COLUMNS, BIN_CSV_MAX_BYTES } from './csv.js';
export { BIN_ERRORS, type BinError } from './errors.js';
export {
  BinImportSchema,
  BinInfoSchema,
  BinListQuery,
  BinLookupParams,
  BinPrefixParams,
  BinRowSchema,
} from './schemas.js';
export { createBinService, type BinService } from './service.js';
export type {
  BinActor,
  BinImportView,
  BinInfo,
  BinListFilter,
  BinRowView,
  CardScheme,
  Category,
  Funding,
} from './types.js';
