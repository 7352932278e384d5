import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';

/** What the BIN table's use cases are bound to. */
export interface BinDeps {
  db: Kdb;
  clock: Clock;
  audit: Pick<AuditLog, 'record'>;
  cursors: CursorCodec;
}
