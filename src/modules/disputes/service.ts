import type { Trx } from '../../db/database.js';
import type { Page } from '../../shared/cursor-page.js';
import type { Owner } from '../../shared/owner.js';
import type { CursorError } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { DisputeNotifications } from '../charges/notifications.js';
import { acceptDispute } from './accept.js';
import { applyAcquirerDispute, problemsOf } from './apply.js';
import type { DisputeServiceDeps } from './deps.js';
import type { DisputeError } from './errors.js';
import { answerWithEvidence } from './evidence.js';
import { listDisputeAlerts, listDisputes, listFraudWarnings } from './list.js';
import {
  disputeQueue,
  type DisputeQueueFilter,
  type DisputeQueuePage,
  type DisputeQueueResult,
} from './queue.js';
import { getDispute, getDisputeAlert, getFraudWarning } from './read.js';
import * as disputes from './repository.js';
import type {
  DisputeAlertListQuery,
  DisputeDetail,
  DisputeListQuery,
  EvidenceUpdate,
  FraudWarningListQuery,
} from './schemas.js';
import type { DisputeAlertView, DisputeView, FraudWarningView } from './views.js';

/** What refunds need of disputes: the part of a charge its chargebacks hold (a refund cannot take it). */
export interface DisputeHolds {
  heldOn(trx: Trx, chargeId: string): Promise<bigint>;
}

type Answer<T> = Promise<Result<T, DisputeError>>;

export interface DisputeService {
  /** The inbox's port: a dispute notification's read-back, applied (src/modules/charges/notifications.ts). */
  notifications: DisputeNotifications;
  holds: DisputeHolds;
  /** The merchant's API (routes.ts, flag `disputes`). */
  list(owner: Owner, query: DisputeListQuery): Answer<Page<DisputeView>>;
  get(owner: Owner, id: string): Answer<DisputeDetail>;
  /** Stages evidence, or sends it (`submit: true`) as the current stage's answer. */
  evidence(owner: Owner, id: string, update: EvidenceUpdate): Answer<DisputeView>;
  accept(owner: Owner, id: string): Answer<DisputeView>;
  listFraudWarnings(owner: Owner, query: FraudWarningListQuery): Answer<Page<FraudWarningView>>;
  getFraudWarning(owner: Owner, id: string): Answer<FraudWarningView>;
  listAlerts(owner: Owner, query: DisputeAlertListQuery): Answer<Page<DisputeAlertView>>;
  getAlert(owner: Owner, id: string): Answer<DisputeAlertView>;
  /** The operator's queue across merchants, nearest deadline first (queue.ts). */
  queue(filter: DisputeQueueFilter, page: DisputeQueuePage): Promise<Result<DisputeQueueResult, CursorError>>;
}

/** Disputes, early fraud warnings and pre-dispute alerts (issue 37, docs/decisions/0076-disputes.md). */
export function createDisputeService(deps: DisputeServiceDeps): DisputeService {
  return {
    notifications: {
      problemsOf,
      apply: (trx, provider, charge, resource) => applyAcquirerDispute(deps, trx, provider, charge, resource),
    },
    holds: { heldOn: (trx, chargeId) => disputes.heldOn(trx, chargeId) },
    list: (owner, query) => listDisputes(deps, owner, query),
    get: (owner, id) => getDispute(deps, owner, id),
    evidence: (owner, id, update) => answerWithEvidence(deps, owner, id, update),
    accept: (owner, id) => acceptDispute(deps, owner, id),
    listFraudWarnings: (owner, query) => listFraudWarnings(deps, owner, query),
    getFraudWarning: (owner, id) => getFraudWarning(deps, owner, id),
    listAlerts: (owner, query) => listDisputeAlerts(deps, owner, query),
    getAlert: (owner, id) => getDisputeAlert(deps, owner, id),
    queue: (filter, page) => disputeQueue(deps, filter, page),
  };
}
