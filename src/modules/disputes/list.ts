import type { Kdb } from '../../db/database.js';
import type { Cursor } from '../../db/keyset.js';
import { cursorPage, type Page } from '../../shared/cursor-page.js';
import type { CursorError, CursorList } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { Owner } from '../../shared/owner.js';
import type { DisputeServiceDeps } from './deps.js';
import { chargeIn, chargesOf } from './read.js';
import * as disputes from './repository.js';
import type { DisputeAlertListQuery, DisputeListQuery, FraudWarningListQuery } from './schemas.js';
import {
  disputeAlertView,
  disputeView,
  fraudWarningView,
  type DisputeAlertView,
  type DisputeCharge,
  type DisputeView,
  type FraudWarningView,
} from './views.js';

/** The merchant's lists of disputes, early fraud warnings and pre-dispute alerts: newest first, by cursor. */

export type ListDeps = Pick<DisputeServiceDeps, 'db' | 'readDb' | 'charges' | 'cursors'>;

/** One page of `list`: its rows after the cursor, each shown with its charge. */
function pageOf<Row extends { created_at: Date; id: string; charge_id: string }, View, F extends object>(
  deps: ListDeps,
  owner: Owner,
  query: { limit: number; cursor?: string | undefined },
  list: CursorList,
  filter: F,
  rows: (db: Kdb, filter: F, after: Cursor | undefined, limit: number) => Promise<Row[]>,
  view: (row: Row, charge: DisputeCharge) => View,
): Promise<Result<Page<View>, CursorError>> {
  return cursorPage<Row, View>(deps.cursors, {
    list,
    owner,
    filter: JSON.stringify(filter),
    query,
    rows: (after) => rows(deps.readDb ?? deps.db, filter, after, query.limit + 1),
    view: async (found) => {
      const charges = await chargesOf(deps, found);
      return found.map((row) => view(row, chargeIn(charges, row.charge_id)));
    },
  });
}

export function listDisputes(
  deps: ListDeps,
  owner: Owner,
  query: DisputeListQuery,
): Promise<Result<Page<DisputeView>, CursorError>> {
  const filter = { status: query.status, chargeId: query.chargeId };
  return pageOf(
    deps,
    owner,
    query,
    'disputes',
    filter,
    (db, ...page) => disputes.listDisputes(db, owner, ...page),
    disputeView,
  );
}

export function listFraudWarnings(
  deps: ListDeps,
  owner: Owner,
  query: FraudWarningListQuery,
): Promise<Result<Page<FraudWarningView>, CursorError>> {
  const filter = { chargeId: query.chargeId };
  return pageOf(
    deps,
    owner,
    query,
    'fraud_warnings',
    filter,
    (db, ...page) => disputes.listFraudWarnings(db, owner, ...page),
    fraudWarningView,
  );
}

export function listDisputeAlerts(
  deps: ListDeps,
  owner: Owner,
  query: DisputeAlertListQuery,
): Promise<Result<Page<DisputeAlertView>, CursorError>> {
  const filter = { status: query.status, chargeId: query.chargeId };
  return pageOf(
    deps,
    owner,
    query,
    'dispute_alerts',
    filter,
    (db, ...page) => disputes.listAlerts(db, owner, ...page),
    disputeAlertView,
  );
}
