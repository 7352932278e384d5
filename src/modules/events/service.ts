import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';

/** The event kinds the gateway emits (product decision 13), with room for more. */
export const EVENT_TYPES = [
  'charge.succeeded',
  'charge.failed',
  'charge.expired',
  'charge.refunded',
  'payout.created',
  'payout.completed',
  'payout.failed',
  'payout.canceled',
  'wallet.created',
  'wallet.default_changed',
  'balance.settled',
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
  'dispute.funds_withdrawn',
  'dispute.funds_reinstated',
  'fraud_warning.created',
  'dispute_alert.created',
  'dispute_alert.resolved',
  'dispute_alert.expired',
] as const;
/**
 * The kinds recorded more than once per resource (migration 0039's `events_once_idx` excludes them): a
 * charge is refunded several times, a dispute updated, closed and withdrawn from at each stage. The others
 * are recorded once per resource.
 */
export const REPEATED_EVENT_TYPES: readonly EventType[] = [
  'charge.refunded',
  'wallet.default_changed',
  'dispute.updated',
  'dispute.closed',
  'dispute.funds_withdrawn',
  'dispute.funds_reinstated',
];
export type EventType = (typeof EVENT_TYPES)[number];

/** What an event says of its resource: the same in what records it and in its payload. */
interface EventContent {
  /** The resource as the API shows it, `metadata` included. */
  data: Record<string, unknown>;
  /** Charge events: the charge id, the acquirer payment id and the merchant's reference. */
  payment?: { id: string; paymentId: string; merchantReference: string };
}

export interface EventInput extends EventContent {
  organizationId: string;
  environment: Environment;
  type: EventType;
  /** The charge, refund or payout the event is about. */
  resourceId: string;
}

/**
 * The payload of product decision 28, fixed when the event is recorded: every delivery attempt of the
 * event sends these same bytes' content, with the same `id`.
 */
export interface EventPayload extends EventContent {
  id: string;
  eventType: EventType;
  createdAt: string;
  livemode: boolean;
}

export interface EventRecorder {
  /**
   * Writes the event in the caller's transaction (the transactional outbox): it exists exactly when the
   * change it announces does. A kind outside `REPEATED_EVENT_TYPES` is recorded once per resource; a second call returns undefined.
   */
  record(trx: Trx, input: EventInput): Promise<EventPayload | undefined>;
  /**
   * `record` of many events in one insert (a settlement chunk's): each is recorded once per resource as
   * `record` does; returns those this call recorded. The subscribers run for each of them.
   */
  recordMany(trx: Trx, inputs: readonly EventInput[]): Promise<EventPayload[]>;
}

/** An event as its subscribers see it. */
export interface RecordedEvent {
  id: string;
  organizationId: string;
  environment: Environment;
  type: EventType;
  createdAt: Date;
}

/**
 * What else must happen in the transaction that records events (the webhook fan-out): called once per
 * `record` or `recordMany` with every event that call recorded, so that a subscriber can handle a
 * settlement chunk's thousands of events in a few set-based statements.
 */
export type EventSubscriber = (trx: Trx, events: readonly RecordedEvent[]) => Promise<void>;

export function createEventRecorder(deps: { clock: Clock; subscribers?: EventSubscriber[] }): EventRecorder {
  async function recordMany(trx: Trx, inputs: readonly EventInput[]): Promise<EventPayload[]> {
    if (inputs.length === 0) return [];
    const now = deps.clock.now();
    // Ids of one call ascend in the order given (ids of one millisecond otherwise sort at random), so that
    // a feed read in id order sees a dispute's `created` before its `closed`.
    const newIds = inputs.map(() => newId('evt', now)).sort();
    const payloads = inputs.map((input, index): EventPayload => ({
      id: newIds[index] ?? newId('evt', now),
      eventType: input.type,
      createdAt: now.toISOString(),
      livemode: input.environment === 'live',
      data: input.data,
      ...(input.payment ? { payment: input.payment } : {}),
    }));
    const inserted = await trx
      .insertInto('events')
      .values(
        inputs.map((input, index) => ({
          id: payloads[index]?.id ?? '',
          organization_id: input.organizationId,
          environment: input.environment,
          type: input.type,
          resource_id: input.resourceId,
          payload: JSON.stringify(payloads[index]),
          created_at: now,
        })),
      )
      // The predicate of the partial unique index `events_once_idx` (migration 0014), spelled the same.
      .onConflict((conflict) =>
        conflict
          .columns(['resource_id', 'type'])
          .where(
            sql<boolean>`type not in ('charge.refunded', 'wallet.default_changed', 'dispute.updated', 'dispute.closed', 'dispute.funds_withdrawn', 'dispute.funds_reinstated')`,
          )
          .doNothing(),
      )
      .returning('id')
      .execute();
    const ids = new Set(inserted.map((row) => row.id));
    const recorded: EventPayload[] = [];
    const subscribed: RecordedEvent[] = [];
    for (const [index, payload] of payloads.entries()) {
      const input = inputs[index];
      if (!input || !ids.has(payload.id)) continue;
      recorded.push(payload);
      subscribed.push({
        id: payload.id,
        organizationId: input.organizationId,
        environment: input.environment,
        type: input.type,
        createdAt: now,
      });
    }
    if (subscribed.length > 0)
      for (const subscriber of deps.subscribers ?? []) await subscriber(trx, subscribed);
    return recorded;
  }

  return {
    recordMany,
    async record(trx, input) {
      const [recorded] = await recordMany(trx, [input]);
      return recorded;
    },
  };
}
