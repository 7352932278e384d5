import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { DISPUTE_ERRORS } from './errors.js';
import {
  DisputeAlertIdParamsSchema,
  DisputeAlertListQuerySchema,
  DisputeAlertListSchema,
  DisputeAlertViewSchema,
  DisputeDetailSchema,
  DisputeIdParamsSchema,
  DisputeListQuerySchema,
  DisputeListSchema,
  DisputeViewSchema,
  EVIDENCE_FIELD_LIMIT,
  EvidenceUpdateSchema,
  FraudWarningIdParamsSchema,
  FraudWarningListQuerySchema,
  FraudWarningListSchema,
  FraudWarningViewSchema,
} from './schemas.js';
import type { DisputeService } from './service.js';

const unwrap = unwrapWith(DISPUTE_ERRORS);

const TAGS = ['Disputes'];
const FLAG = 'Needs the `disputes` feature of the organization (403 `forbidden` without it).';
const OWNERSHIP =
  'It belongs to the organization and environment of the key; another organization’s or environment’s ' +
  'is 404 `not_found`.';
const PAGING =
  'newest first, `limit` (1 to 100, default 20) per page; pass `nextCursor` back as `cursor` with the ' +
  'same filters.';
const ACQUIRER =
  'The acquirer is asked first and its answer applied as its notifications are (each change once, its ' +
  'events and ledger entries with it). The acquirer down, or answering 408, 425 or 429 on every attempt: ' +
  '502 `provider_unavailable` with nothing recorded as sent; another refusal of it: 502 `provider_rejected`.';

/** `/v1/disputes`, `/v1/fraud-warnings` and `/v1/dispute-alerts` (issue 37 item 4, flag `disputes`). */
export async function disputeRoutes(
  app: App,
  options: { service: DisputeService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const { service } = options;
  const kit = routeKit({
    tags: TAGS,
    feature: 'disputes',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  kit.list(app, '/v1/disputes', DisputeListQuerySchema, DisputeListSchema, {
    operationId: 'listDisputes',
    summary: 'List disputes',
    description:
      `Disputes (chargebacks, and inquiries: \`warning_*\`) of this environment, ${PAGING} Filters: ` +
      `\`status\`, \`chargeId\`. Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/disputes/:id', DisputeIdParamsSchema, DisputeDetailSchema, {
    operationId: 'getDispute',
    summary: 'Retrieve a dispute',
    description:
      'The dispute with its staged and submitted evidence, its deadline and the ledger entries it caused ' +
      `(funds withdrawn and reinstated, each stage’s fee). Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.get(ownerOf(request), id)),
  });

  app.post(
    '/v1/disputes/:id/evidence',
    kit.idempotent(
      {
        operationId: 'updateDisputeEvidence',
        summary: 'Stage or submit evidence',
        description:
          'Merges the text fields and `files` sent into the evidence staged for the current stage (`null` ' +
          'clears one). With `submit: true` the staged evidence is then sent to the acquirer, each field ' +
          `under its label, as the stage’s one answer (at most ${EVIDENCE_FIELD_LIMIT} characters in all), ` +
          'and the dispute goes `under_review`. Refused: after `evidenceDueBy` (409 `evidence_past_due`), ' +
          'once evidence was sent for the stage (409 `evidence_already_submitted`), a dispute that does not ' +
          'need a response (409 `invalid_state_transition`); submitting with nothing staged is 400 ' +
          `\`validation_failed\`. ${ACQUIRER} Needs scope \`write\`. Honours \`X-Idempotency-Key\`. ` +
          `${OWNERSHIP} ${FLAG}`,
      },
      {
        params: DisputeIdParamsSchema,
        body: EvidenceUpdateSchema,
        response: { 200: DisputeViewSchema, ...failures('update', 502) },
      },
    ),
    async (request) => unwrap(await service.evidence(ownerOf(request), request.params.id, request.body)),
  );

  app.post(
    '/v1/disputes/:id/accept',
    kit.idempotent(
      {
        operationId: 'acceptDispute',
        summary: 'Accept a dispute',
        description:
          'Gives up a dispute that needs a response: it closes `lost` and the funds stay withdrawn. Accepting ' +
          'an accepted dispute answers it unchanged; any other status is 409 `invalid_state_transition` ' +
          `(an inquiry is answered with evidence). ${ACQUIRER} Needs scope \`write\`. Honours ` +
          `\`X-Idempotency-Key\`. ${OWNERSHIP} ${FLAG}`,
      },
      { params: DisputeIdParamsSchema, response: { 200: DisputeViewSchema, ...failures('action', 502) } },
    ),
    async (request) => unwrap(await service.accept(ownerOf(request), request.params.id)),
  );

  kit.list(app, '/v1/fraud-warnings', FraudWarningListQuerySchema, FraudWarningListSchema, {
    operationId: 'listFraudWarnings',
    summary: 'List early fraud warnings',
    description:
      'Issuers’ fraud reports (Visa TC40, Mastercard SAFE) on charges of this environment, which may ' +
      `precede a dispute, ${PAGING} Filter: \`chargeId\`. Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.listFraudWarnings(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/fraud-warnings/:id', FraudWarningIdParamsSchema, FraudWarningViewSchema, {
    operationId: 'getFraudWarning',
    summary: 'Retrieve an early fraud warning',
    description: `Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.getFraudWarning(ownerOf(request), id)),
  });

  kit.list(app, '/v1/dispute-alerts', DisputeAlertListQuerySchema, DisputeAlertListSchema, {
    operationId: 'listDisputeAlerts',
    summary: 'List pre-dispute alerts',
    description:
      'Issuers’ offers to drop a case if the charge is refunded before `refundBy`, of this environment, ' +
      `${PAGING} Filters: \`status\`, \`chargeId\`. Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.listAlerts(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/dispute-alerts/:id', DisputeAlertIdParamsSchema, DisputeAlertViewSchema, {
    operationId: 'getDisputeAlert',
    summary: 'Retrieve a pre-dispute alert',
    description: `Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.getAlert(ownerOf(request), id)),
  });
}
