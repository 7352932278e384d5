import type { Trx } from '../../db/database.js';
import type { ApplicationRow } from '../../db/schema.js';
import { err, ok, type Result } from '../../shared/result.js';
import { entryAbout } from '../audit/service.js';
import type { OrganizationError } from './errors.js';
import type { Actor } from './types.js';
import type { UnderwritingDeps } from './underwriting-types.js';

/** A decision taken under the application's row lock cannot find it elsewhere: that would be a bug. */
export async function decided(
  pending: Promise<ApplicationRow | undefined>,
  id: string,
): Promise<ApplicationRow> {
  const row = await pending;
  if (!row) throw new Error(`application ${id} left its state under its row lock`);
  return row;
}

/** The application, locked, while it is still to be decided; nothing is written before this. */
export async function lockPending(
  deps: Pick<UnderwritingDeps, 'applications'>,
  trx: Trx,
  id: string,
  action: string,
): Promise<Result<ApplicationRow, OrganizationError>> {
  const application = await deps.applications.lock(trx, id);
  if (!application) return err({ code: 'application_not_found', id });
  if (application.status !== 'NEW' && application.status !== 'IN_REVIEW')
    return err({ code: 'application_decided', id, status: application.status, action });
  return ok(application);
}

/**
 * One step of an application's review, in one transaction: the application locked while it is still to
 * be decided (the refusal otherwise), then the step on it.
 */
export function onPending<T>(
  deps: Pick<UnderwritingDeps, 'db' | 'applications'>,
  id: string,
  action: string,
  step: (trx: Trx, application: ApplicationRow) => Promise<Result<T, OrganizationError>>,
): Promise<Result<T, OrganizationError>> {
  return deps.db.transaction().execute(async (trx): Promise<Result<T, OrganizationError>> => {
    const pending = await lockPending(deps, trx, id, action);
    return pending.ok ? step(trx, pending.value) : pending;
  });
}

/** The audit entry of a step of an application's review: its status before it, and what it is after. */
export function auditDecision(
  deps: Pick<UnderwritingDeps, 'audit'>,
  trx: Trx,
  by: Actor,
  decision: {
    id: string;
    action: string;
    before: ApplicationRow;
    after: Record<string, unknown>;
    organizationId?: string;
  },
): Promise<void> {
  const { id, action, before, after, organizationId } = decision;
  const target = { type: 'application', id, organizationId };
  return deps.audit.record(trx, entryAbout(by, action, target, { before: { status: before.status }, after }));
}
