import { Type } from 'typebox';
import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { DisputeQueueFilter, QueuedDispute } from '../disputes/queue.js';
import { apiRoute, ListOf } from './api-kit.js';
import { ENVIRONMENTS } from './schemas.js';

/** What the operator's disputes queue reads of the disputes module. */
export interface OperatorDisputes {
  queue(filter: DisputeQueueFilter): Promise<QueuedDispute[]>;
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
  environment: Type.Enum([...ENVIRONMENTS]),
  chargeId: Type.String(),
  amount: Minor('The disputed amount, TRY minor units.'),
  currency: Type.Literal('TRY'),
  reason: Type.String(),
  reasonCode: Type.String({ description: 'The scheme’s reason code (Visa 10.4, Mastercard 4837, …).' }),
  network: Type.Enum(['visa', 'mastercard', 'troy', 'unknown']),
  status: Type.Enum([...DISPUTE_STATUSES]),
  stage: Type.Enum(['inquiry', 'chargeback', 'pre_arbitration']),
  evidenceDueBy: Time,
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
  },
  { additionalProperties: false },
);

/** The disputes of every merchant as JSON, nearest deadline first (docs/disputes.md). */
export async function operatorDisputeApi(app: App, deps: { disputes: OperatorDisputes }): Promise<void> {
  app.get(
    '/operator/v1/disputes',
    apiRoute(
      'read',
      ListOf(QueuedDisputeSchema),
      {
        description:
          'The disputes queue across merchants: by default those the merchant can still answer ' +
          '(`warning_needs_response`, `warning_under_review`, `needs_response`, `under_review`), the nearest ' +
          '`evidenceDueBy` first, at most `limit` (1 to 200, default 100); filtered by status, organization ' +
          'or environment.',
        querystring: DisputeQueueQuery,
      },
      { errors: errorResponses(400, 401, 403, 429) },
    ),
    async (request) => ({ data: await deps.disputes.queue(request.query) }),
  );
}
