import { Type } from 'typebox';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { CursorError } from '../../shared/pagination.js';
import { ok, type Result } from '../../shared/result.js';
import type {
  DisputeQueueFilter,
  DisputeQueuePage,
  DisputeQueueResult,
  QueuedDispute,
} from '../disputes/queue.js';
import type { DisputeService } from '../disputes/service.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import { apiRoute, pagedList, PageOf } from './api-kit.js';
import { ENVIRONMENTS } from './schemas.js';

/** What the operator's disputes queue reads of the disputes module. */
export type OperatorDisputes = Pick<DisputeService, 'queue'>;

/** The queue, and the organizations' names its rows carry. */
export interface DisputeQueueDeps {
  disputes: OperatorDisputes;
  organizations: Pick<OrganizationAdminService, 'names'>;
}

export const DISPUTE_STATUSES = [
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
  'needs_response',
  'under_review',
  'won',
  'lost',
] as const;

const Minor = (description: string) => Type.String({ pattern: '^[0-9]+$', description });
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const QueuedDisputeSchema = Type.Object({
  id: Type.String({ pattern: '^dp_' }),
  organizationId: Type.String(),
  organizationName: Type.String({ description: 'The organization’s name.' }),
  environment: Type.Enum([...ENVIRONMENTS]),
  chargeId: Type.String(),
  amount: Minor('The disputed amount, TRY minor units.'),
  currency: Type.Literal('TRY'),
  reason: Type.String(),
  reasonCode: Type.String({ description: 'The scheme’s reason code (Visa 10.4, Mastercard 4837, …).' }),
  network: Type.Enum(['visa', 'mastercard', 'troy', 'unknown']),
  status: Type.Enum([...DISPUTE_STATUSES]),
  stage: Type.Enum(['inquiry', 'chargeback', 'pre_arbitration']),
  evidenceDueBy: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The deadline of the current stage; null when the acquirer gave none (listed last).',
  }),
  evidenceSubmittedAt: Time,
  amountWithdrawn: Minor('What the acquirer withdrew so far, TRY minor units.'),
  createdAt: Type.String({ format: 'date-time' }),
});

export const DisputeQueueQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum([...DISPUTE_STATUSES])),
    organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    environment: Type.Optional(Type.Enum([...ENVIRONMENTS])),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'The `nextCursor` of the previous page, with the same filters.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type NamedDispute = QueuedDispute & { organizationName: string };
export type NamedQueuePage = Omit<DisputeQueueResult, 'data'> & { data: NamedDispute[] };

/** A page of the queue, each dispute with its organization's name, read through the organizations service. */
export async function namedQueuePage(
  deps: DisputeQueueDeps,
  filter: DisputeQueueFilter,
  page: DisputeQueuePage,
): Promise<Result<NamedQueuePage, CursorError>> {
  const found = await deps.disputes.queue(filter, page);
  if (!found.ok) return found;
  const names = await deps.organizations.names(found.value.data.map((dispute) => dispute.organizationId));
  return ok({
    ...found.value,
    data: found.value.data.map((dispute) => ({
      ...dispute,
      organizationName: names.get(dispute.organizationId) ?? dispute.organizationId,
    })),
  });
}

/** The disputes of every merchant as JSON, nearest deadline first (docs/disputes.md). */
export async function operatorDisputeApi(app: App, deps: DisputeQueueDeps): Promise<void> {
  app.get(
    '/operator/v1/disputes',
    apiRoute(
      'read',
      PageOf(QueuedDisputeSchema),
      {
        description:
          'The disputes queue across merchants: by default those the merchant can still answer ' +
          '(`warning_needs_response`, `warning_under_review`, `needs_response`, `under_review`), the nearest ' +
          '`evidenceDueBy` first, those without one last, then by id; filtered by status, organization or ' +
          'environment; each with its organization’s name. Cursor paged: `limit` (1 to 200, default 100) ' +
          'and the `nextCursor` of the previous page, which is bound to the filters it was issued with.',
        querystring: DisputeQueueQuery,
      },
      { errors: errorResponses(400, 401, 403, 429) },
    ),
    pagedList(async (filter, page) => {
      const { data, nextCursor } = cursorOrThrow(await namedQueuePage(deps, filter, page));
      return { data, nextCursor };
    }),
  );
}
