import type { Environment } from '../../db/schema.js';
import type { CursorError } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import { listRuns, retrieveRun } from './listing.js';
import type * as runs from './repository.js';
import { run } from './run.js';
import { runDay } from './run-day.js';
import type { ReconciliationDeps, RunActor, RunDetail, RunOutcome, RunView } from './types.js';

export interface ReconciliationService {
  /**
   * Compares the acquirer's settlement report of a UTC date that is over with the ledger's clearing
   * entries of that date, and records the run with every difference (an alert when one is not timing).
   */
  run(environment: Environment, reportDate: string, by: RunActor): Promise<RunOutcome>;
  /**
   * The daily job: the UTC date before `periodStart`, for each environment with an acquirer, unless a
   * scheduled run of it exists. Throws when an acquirer could not be read (the job runs the period again).
   */
  runDay(periodStart: Date): Promise<RunView[]>;
  list(
    filter: runs.RunFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<{ data: RunView[]; nextCursor: string | null }, CursorError>>;
  retrieve(id: string): Promise<RunDetail | undefined>;
}

export function createReconciliationService(deps: ReconciliationDeps): ReconciliationService {
  return {
    run: (environment, reportDate, by) => run(deps, environment, reportDate, by),
    runDay: (periodStart) => runDay(deps, periodStart),
    list: (filter, page) => listRuns(deps, filter, page),
    retrieve: (id) => retrieveRun(deps, id),
  };
}
