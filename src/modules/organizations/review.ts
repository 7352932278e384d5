import type { ApplicationRow } from '../../db/schema.js';
import { err, ok, type Result } from '../../shared/result.js';
import { toPage, type CursorError } from '../../shared/pagination.js';
import { applicationRejectedEmail } from '../email/templates.js';
import type { OrganizationError } from './errors.js';
import { auditDecision, decided, onPending } from './pending-application.js';
import type { Actor } from './types.js';
import type { ApplicationPage, UnderwritingDeps } from './underwriting-types.js';

// Application review: NEW -> IN_REVIEW -> APPROVED | REJECTED (product decision 4). Approval: approve.ts.

export async function listApplications(
  deps: UnderwritingDeps,
  { status, limit, cursor }: { status?: ApplicationRow['status']; limit: number; cursor?: string },
): Promise<Result<ApplicationPage, CursorError>> {
  const pages = deps.cursors.for({ list: 'applications', filter: status ?? null });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after?.ok === false) return after;
  const rows = await deps.applications.page({ status, after: after?.value, limit });
  return ok(toPage(rows, limit, (row) => pages.encode(row.created_at, row.id)));
}

export async function getApplication(
  deps: UnderwritingDeps,
  id: string,
): Promise<Result<ApplicationRow, OrganizationError>> {
  const row = await deps.applications.find(id);
  return row ? ok(row) : err({ code: 'application_not_found', id });
}

export function startReview(
  deps: UnderwritingDeps,
  id: string,
  by: Actor,
): Promise<Result<ApplicationRow, OrganizationError>> {
  return onPending(deps, id, 'reviewed', async (trx, before) => {
    if (before.status === 'IN_REVIEW') return ok(before);
    const fields = { reviewed_by: by.actor, updated_at: deps.clock.now() };
    const after = await decided(deps.applications.decide(trx, id, ['NEW'], 'IN_REVIEW', fields), id);
    await auditDecision(deps, trx, by, {
      id,
      action: 'application.review_started',
      before,
      after: { status: after.status },
    });
    return ok(after);
  });
}

export async function reject(
  deps: UnderwritingDeps,
  id: string,
  reason: string,
  by: Actor,
): Promise<Result<ApplicationRow, OrganizationError>> {
  const { mailer } = deps;
  const rejected = await onPending(deps, id, 'rejected', async (trx, before) => {
    const now = deps.clock.now();
    const after = await decided(
      deps.applications.decide(trx, id, ['NEW', 'IN_REVIEW'], 'REJECTED', {
        reviewed_by: by.actor,
        reviewed_at: now,
        decision_reason: reason,
        updated_at: now,
      }),
      id,
    );
    await mailer.enqueue(
      trx,
      before.contact_email,
      applicationRejectedEmail({ companyName: before.company_name, reason }),
    );
    await auditDecision(deps, trx, by, {
      id,
      action: 'application.rejected',
      before,
      after: { status: 'REJECTED', reason },
    });
    return ok(after);
  });
  if (rejected.ok) mailer.nudge();
  return rejected;
}
