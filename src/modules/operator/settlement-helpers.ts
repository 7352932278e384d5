import { toApiError } from '../../http/errors.js';
import type { CursorError } from '../../http/cursor-errors.js';
import type { Result } from '../../shared/result.js';
import type { SettlementCommandError } from '../settlement/batch-types.js';
import { SETTLEMENT_ERRORS } from '../settlement/errors.js';

/** At the edge of the settlement's JSON API and console pages: the value, or the refusal thrown. */
export function settlementValue<T>(result: Result<T, SettlementCommandError | CursorError>): T {
  if (result.ok) return result.value;
  throw toApiError(SETTLEMENT_ERRORS, result.error);
}
