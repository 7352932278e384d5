import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { parseJsonText } from '../../http/input.js';
import { ApiError, errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import { safeEqual } from '../../shared/crypto.js';
import type { AcquirerPayment, ProviderStatus } from '../acquirer/types.js';
import type { PaymentCompletion } from './completion.js';

/** Signatures older or newer than this are refused (the same tolerance the spec asks of merchants). */
export const NOTIFICATION_TOLERANCE_SECONDS = 300;
export const NOTIFICATION_PATH = '/webhooks/v1/payments';

const PROVIDER_STATUSES: readonly ProviderStatus[] = [
  'awaiting_payment',
  'requires_action',
  'succeeded',
  'failed',
  'canceled',
  'partially_refunded',
  'refunded',
];

export interface ProviderNotification {
  id: string;
  type: string;
  createdAt: string;
  payment: AcquirerPayment;
}

export type NotificationOutcome = 'applied' | 'stale' | 'duplicate' | 'unknown_payment';

export interface NotificationInbox {
  /**
   * Records and applies one verified notification in one transaction under the charge's row lock: a
   * notification id is applied once however often and however concurrently it arrives.
   */
  receive(
    environment: Environment,
    provider: string,
    notification: ProviderNotification,
  ): Promise<NotificationOutcome>;
}

export function createNotificationInbox(deps: {
  db: Kdb;
  clock: Clock;
  completion: PaymentCompletion;
  logger: Logger;
}): NotificationInbox {
  return {
    async receive(environment, provider, notification) {
      const outcome = await deps.db.transaction().execute(async (trx): Promise<NotificationOutcome> => {
        const charge = await trx
          .selectFrom('charges')
          .selectAll()
          .where('provider_payment_id', '=', notification.payment.id)
          .where('environment', '=', environment)
          .where('creation_state', '=', 'created')
          .forUpdate()
          .executeTakeFirst();
        const known = charge !== undefined && notification.payment.reference === charge.id;
        const inserted = await trx
          .insertInto('provider_notifications')
          .values({
            provider,
            id: notification.id,
            type: notification.type,
            payment_id: notification.payment.id,
            charge_id: known ? charge.id : null,
            body: JSON.stringify(notification),
            outcome: known ? 'applied' : 'unknown_payment',
            received_at: deps.clock.now(),
          })
          .onConflict((conflict) => conflict.columns(['provider', 'id']).doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!inserted) return 'duplicate';
        if (!known) return 'unknown_payment';
        const before = charge.provider_status;
        const applied = await deps.completion.applyLocked(trx, charge, notification.payment);
        const stale =
          !applied.transitioned &&
          applied.charge.provider_status === before &&
          before !== notification.payment.status;
        if (stale) {
          await trx
            .updateTable('provider_notifications')
            .set({ outcome: 'stale' })
            .where('provider', '=', provider)
            .where('id', '=', notification.id)
            .execute();
        }
        return stale ? 'stale' : 'applied';
      });
      deps.logger.info(
        {
          provider,
          notificationId: notification.id,
          type: notification.type,
          paymentId: notification.payment.id,
          outcome,
        },
        'provider notification',
      );
      return outcome;
    },
  };
}

const NotificationAckSchema = Type.Object(
  {
    received: Type.Boolean(),
    outcome: Type.Enum(['applied', 'stale', 'duplicate', 'unknown_payment'], {
      description:
        '`applied`: the charge knows it now; `stale`: older than what the charge knew; `duplicate`: this ' +
        'notification id was received before; `unknown_payment`: no charge of this environment has the payment.',
    }),
  },
  { description: 'The acknowledgement: any 2xx stops the acquirer retrying.' },
);

/**
 * `POST /webhooks/v1/payments` on an API listener (spec section 4, product decision 20): the acquirer of
 * the listener's environment tells the gateway about its payments. The signature is checked over the
 * raw body bytes in constant time before anything is parsed.
 */
export async function providerNotificationRoutes(
  app: App,
  options: {
    inbox: NotificationInbox;
    environment: Environment;
    /** The acquirer's name and notification secret for this environment; undefined when none is configured. */
    acquirer: () => { name: string; notificationSecret: string } | undefined;
    clock: Clock;
  },
): Promise<void> {
  // The raw bytes, not parsed JSON: the signature covers exactly what was sent.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    NOTIFICATION_PATH,
    {
      schema: {
        operationId: 'receiveProviderNotification',
        summary: 'Receive an acquirer notification',
        description:
          'For the acquirer, not for merchants: signed notifications about payments (docs/sandbox-acquirer.md). ' +
          '`Acquirer-Timestamp` (Unix seconds) and `Acquirer-Signature` (lowercase hex HMAC-SHA256 with the ' +
          "notification secret of this environment's acquirer over `<timestamp>.<raw body>`) are checked in " +
          'constant time; a timestamp more than 300 seconds away is refused. Each notification id is applied ' +
          'once; a late or out-of-order one never moves a final charge backwards.',
        tags: ['Provider notifications'],
        security: [],
        response: { 200: NotificationAckSchema, ...errorResponses(400, 401, 413, 415, 500) },
      },
      config: { auth: 'public' },
    },
    async (request) => {
      const acquirer = options.acquirer();
      if (!acquirer) throw new ApiError('unauthorized', 'No acquirer is configured for this environment.');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      verifySignature(raw, request.headers, acquirer.notificationSecret, options.clock.now());
      const notification = parseNotification(raw);
      const outcome = await options.inbox.receive(options.environment, acquirer.name, notification);
      return { received: true, outcome };
    },
  );
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

/** Throws 401 `unauthorized` unless the timestamp is fresh and the signature is the secret's over it and the body. */
export function verifySignature(
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): void {
  const timestamp = header(headers, 'acquirer-timestamp');
  const signature = header(headers, 'acquirer-signature');
  if (timestamp === undefined || signature === undefined) {
    throw new ApiError('unauthorized', 'The notification is not signed.');
  }
  if (!/^\d{1,12}$/.test(timestamp))
    throw new ApiError('unauthorized', 'The notification timestamp is malformed.');
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > NOTIFICATION_TOLERANCE_SECONDS) {
    throw new ApiError('unauthorized', 'The notification timestamp is outside the tolerance.');
  }
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))
    .digest('hex');
  if (!safeEqual(expected, signature))
    throw new ApiError('unauthorized', 'The notification signature does not match.');
}

function parseNotification(raw: Buffer): ProviderNotification {
  // Bounded depth and storable text, as every parsed body of the gateway (src/http/input.ts).
  const parsed = parseJsonText(raw.toString('utf8'));
  const body = parsed as Partial<ProviderNotification> | null;
  const payment = body?.payment as Partial<AcquirerPayment> | undefined;
  const problems: string[] = [];
  if (typeof body?.id !== 'string' || body.id.length === 0 || body.id.length > 100) problems.push('id');
  if (typeof body?.type !== 'string') problems.push('type');
  if (typeof payment?.id !== 'string') problems.push('payment.id');
  if (typeof payment?.reference !== 'string') problems.push('payment.reference');
  if (typeof payment?.status !== 'string' || !PROVIDER_STATUSES.includes(payment.status))
    problems.push('payment.status');
  if (problems.length > 0) {
    throw ApiError.validation(
      problems.map((path) => ({
        path,
        in: 'body' as const,
        code: 'invalid_value' as const,
        message: 'is missing or invalid',
      })),
    );
  }
  return body as ProviderNotification;
}
