import { addDays, utcDateOf } from '../../shared/business-calendar.js';
import * as runs from './repository.js';
import { run } from './run.js';
import type { ReconciliationDeps, RunView } from './types.js';

const SCHEDULE_ACTOR = 'system:reconciliation';

/**
 * The daily job: the UTC date before `periodStart`, for each environment with an acquirer, unless a
 * scheduled run of it exists. Throws when an acquirer could not be read (the job runs the period again).
 */
export async function runDay(deps: ReconciliationDeps, periodStart: Date): Promise<RunView[]> {
  const reportDate = addDays(utcDateOf(periodStart), -1);
  const made: RunView[] = [];
  const problems: string[] = [];
  for (const environment of ['sandbox', 'live'] as const) {
    if (!deps.acquirerFor(environment)) continue;
    const earlier = await runs.listRuns(
      deps.db,
      { environment, reportDate, origin: 'schedule' },
      undefined,
      1,
    );
    if (earlier.length > 0) continue;
    const result = await run(deps, environment, reportDate, { actor: SCHEDULE_ACTOR, origin: 'schedule' });
    if (result.ok) made.push(result.value);
    else problems.push(`${environment}: ${result.error.code}`);
  }
  if (problems.length > 0) {
    throw new Error(`reconciliation of ${reportDate}: ${problems.join(', ')}; the period runs again`);
  }
  return made;
}
