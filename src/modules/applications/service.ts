import type { Kdb, Trx } from '../../db/database.js';
import type { ApplicationRow, ApplicationsTable, NewApplicationRow } from '../../db/schema.js';
import type { Updateable } from 'kysely';
import type { Cursor } from '../../shared/pagination.js';
import type { ApplicationStatus } from './model.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { ApplicationError } from './errors.js';
import {
  applicationsFromAddress,
  deleteNewApplication,
  findApplication,
  insertApplication,
  lockApplication,
  lockSubmitterAddress,
  pageOfApplications,
  transition,
} from './repository.js';
import type { ApplicationCreate, ApplicationCreated } from './schemas.js';

/** Accepted applications per client address per window (APPLICATION_RATE_LIMIT_MAX / _WINDOW_MS). */
export interface ApplicationLimit {
  max: number;
  windowMs: number;
}

export type SubmitResult = Result<ApplicationCreated, ApplicationError>;

export interface ApplicationService {
  submit(input: ApplicationCreate, context: { ip: string | undefined }): Promise<SubmitResult>;
}

/**
 * What underwriting (the organizations module) needs of applications: read them, lock one, and move it
 * through the review states in the caller's transaction. The applications module keeps its table.
 */
export interface ApplicationReview {
  page(filter: {
    status?: ApplicationStatus | undefined;
    after?: Cursor | undefined;
    limit: number;
  }): Promise<ApplicationRow[]>;
  find(id: string): Promise<ApplicationRow | undefined>;
  lock(trx: Trx, id: string): Promise<ApplicationRow | undefined>;
  /** `transition` of the state machine (model.ts); undefined when the application was in none of `from`. */
  decide(
    trx: Trx,
    id: string,
    from: readonly ApplicationStatus[],
    to: ApplicationStatus,
    patch: Omit<Updateable<ApplicationsTable>, 'id' | 'status'>,
  ): Promise<ApplicationRow | undefined>;
  /** Files an application on the merchant's behalf (the demo merchant), then takes it back if unused. */
  file(row: NewApplicationRow): Promise<ApplicationRow>;
  withdrawNew(id: string): Promise<void>;
}

export function createApplicationReview(deps: { db: Kdb }): ApplicationReview {
  return {
    page: (filter) => pageOfApplications(deps.db, filter),
    find: (id) => findApplication(deps.db, id),
    lock: (trx, id) => lockApplication(trx, id),
    decide: (trx, id, from, to, patch) => transition(trx, id, from, to, patch),
    file: (row) => insertApplication(deps.db, row),
    withdrawNew: (id) => deleteNewApplication(deps.db, id),
  };
}

/**
 * The limit counts what it protects: accepted applications, stored with the address that sent them.
 * A refused body (400), an idempotent replay (answered before this runs) and a 429 add nothing, and
 * the count is the same from every listener and every process because it is read from the database.
 */
export function createApplicationService(deps: {
  db: Kdb;
  clock: Clock;
  limit: ApplicationLimit;
}): ApplicationService {
  return {
    async submit(input, { ip }) {
      const verticalOther = presentOrNull(input.verticalOther);
      if (input.vertical !== 'other' && verticalOther !== null) {
        return err({ code: 'vertical_other_not_allowed' });
      }
      const address = ip ?? null;
      return deps.db.transaction().execute(async (trx): Promise<SubmitResult> => {
        await lockSubmitterAddress(trx, address);
        const now = deps.clock.now();
        const since = new Date(now.getTime() - deps.limit.windowMs);
        const recent = await applicationsFromAddress(trx, address, since);
        if (recent.count >= deps.limit.max) {
          const freesAt = (recent.oldest ?? now).getTime() + deps.limit.windowMs;
          return err({
            code: 'too_many_applications',
            retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)),
          });
        }
        const row = await insertApplication(trx, {
          id: newId('app', now),
          status: 'NEW',
          company_name: input.companyName,
          jurisdiction: input.jurisdiction,
          vertical: input.vertical,
          vertical_other: verticalOther,
          monthly_volume_usd: BigInt(input.monthlyVolumeUSD),
          current_acquirer: presentOrNull(input.currentAcquirer),
          why_switching: presentOrNull(input.whySwitching),
          contact_name: input.contactName,
          contact_email: input.contactEmail,
          telegram: presentOrNull(input.telegram),
          submitted_ip: address,
          created_at: now,
          updated_at: now,
        });
        return ok({ id: row.id, status: 'NEW' as const, createdAt: row.created_at.toISOString() });
      });
    },
  };
}

function presentOrNull(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
