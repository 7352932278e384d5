import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { parseJsonText } from '../../http/input.js';
import { errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import { safeEqual } from '../../shared/crypto.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerPayment,
  type ProviderStatus,
} from '../acquirer/types.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import { paymentDifferences, wouldCredit, type PaymentCompletion } from './completion.js';
import { NOTIFICATION_ERRORS, type NotificationError } from './errors.js';
import * as charges from './repository.js';

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

export type NotificationOutcome =
  'applied' | 'stale' | 'duplicate' | 'unknown_payment' | 'mismatch' | 'unconfirmed';

export const NOTIFICATION_OUTCOMES: readonly NotificationOutcome[] = [
  'applied',
  'stale',
  'duplicate',
  'unknown_payment',
  'mismatch',
  'unconfirmed',
];

export interface NotificationInbox {
  /**
   * Records and applies one verified notification in one transaction under the charge's row lock: a
   * notification id is applied once however often and however concurrently it arrives. A notification
   * whose payment disagrees with the charge (reference, amount, currency) is recorded and refused; one
   * that would credit money is applied only as the acquirer's own read-back of the payment confirms it
   * (docs/decisions/0013-notification-trust.md). `read_back_unavailable` when that read-back cannot be
   * made: nothing is recorded, so the acquirer's retry tries again.
   */
  receive(
    environment: Environment,
    provider: string,
    notification: ProviderNotification,
  ): Promise<Result<NotificationOutcome, NotificationError>>;
}

/** What the acquirer answered when asked for the payment: the payment, or its refusal (4xx). */
type ReadBack = { payment: AcquirerPayment } | { refused: AcquirerRejectedError };

type Step = { done: NotificationOutcome } | { readBack: string };

export function createNotificationInbox(deps: {
  db: Kdb;
  clock: Clock;
  completion: PaymentCompletion;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  alerts: AlertRaiser;
  logger: Logger;
}): NotificationInbox {
  const { logger } = deps;

  async function readBackPayment(environment: Environment, paymentId: string): Promise<ReadBack> {
    const acquirer = deps.acquirerFor(environment);
    if (!acquirer) throw new AcquirerUnavailableError('no acquirer is configured to confirm the payment', 0);
    try {
      return { payment: await acquirer.getPayment(paymentId) };
    } catch (error) {
      // A "not now" 4xx refused nothing: the read-back is unavailable, and the notification is asked again.
      if (error instanceof AcquirerRejectedError && !error.transient) return { refused: error };
      if (error instanceof AcquirerRejectedError) {
        throw new AcquirerUnavailableError(
          `the acquirer asked to read the payment later: ${error.message}`,
          0,
        );
      }
      throw error;
    }
  }

  /** One pass under the charge's lock; asks for a read-back (and writes nothing) when money would move. */
  async function attempt(
    trx: Trx,
    environment: Environment,
    provider: string,
    notification: ProviderNotification,
    readBack: ReadBack | undefined,
  ): Promise<Step> {
    const reported = notification.payment;
    const charge = await charges.lockByPaymentId(trx, environment, reported.id);

    const record = async (outcome: Exclude<NotificationOutcome, 'duplicate'>): Promise<boolean> => {
      const inserted = await trx
        .insertInto('provider_notifications')
        .values({
          provider,
          id: notification.id,
          type: notification.type,
          payment_id: reported.id,
          charge_id: charge?.id ?? null,
          body: JSON.stringify(notification),
          outcome,
          received_at: deps.clock.now(),
        })
        .onConflict((conflict) => conflict.columns(['provider', 'id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return inserted !== undefined;
    };

    if (!charge) return { done: (await record('unknown_payment')) ? 'unknown_payment' : 'duplicate' };
    // Under the charge's lock, so a concurrent copy waits here and then finds this one.
    const seen = await trx
      .selectFrom('provider_notifications')
      .select('outcome')
      .where('provider', '=', provider)
      .where('id', '=', notification.id)
      .executeTakeFirst();
    if (seen) return { done: 'duplicate' };

    const refuse = async (
      outcome: 'mismatch' | 'unconfirmed',
      reason: string,
      details: Record<string, unknown>,
    ): Promise<Step> => {
      if (!(await record(outcome))) return { done: 'duplicate' };
      await deps.alerts.raise(trx, {
        kind: 'notification_mismatch',
        organizationId: charge.organization_id,
        environment: charge.environment,
        subjectId: `${provider}:${notification.id}`,
        chargeId: charge.id,
        message: `${outcome === 'mismatch' ? 'Refused' : 'Unconfirmed'} notification for ${charge.id}: ${reason}`,
        details: {
          outcome,
          provider,
          notificationId: notification.id,
          type: notification.type,
          expected: {
            paymentId: charge.provider_payment_id,
            reference: charge.id,
            amount: charge.amount,
            currency: charge.currency,
            status: charge.status,
          },
          reported: describe(reported),
          ...details,
        },
      });
      return { done: outcome };
    };

    const differences = paymentDifferences(charge, reported);
    if (differences.length > 0) {
      return refuse('mismatch', `the notification's ${differences.join(', ')} differ from the charge`, {
        differences,
      });
    }

    let payment: AcquirerPayment = reported;
    if (wouldCredit(charge, reported.status)) {
      if (readBack === undefined) return { readBack: reported.id };
      if ('refused' in readBack) {
        return refuse(
          'unconfirmed',
          `the acquirer refused to read the payment back (${readBack.refused.providerCode})`,
          {
            readBack: {
              providerCode: readBack.refused.providerCode,
              httpStatus: readBack.refused.providerHttpStatus,
            },
          },
        );
      }
      const confirmed = readBack.payment;
      const readBackDifferences = paymentDifferences(charge, confirmed);
      if (readBackDifferences.length > 0) {
        return refuse(
          'mismatch',
          `the acquirer's own record of the payment differs in ${readBackDifferences.join(', ')}`,
          {
            differences: readBackDifferences,
            readBack: describe(confirmed),
          },
        );
      }
      if (!wouldCredit(charge, confirmed.status)) {
        // The acquirer's word is applied (it never credits here); the notification's claim is not.
        const step = await refuse(
          'unconfirmed',
          `the acquirer reports ${confirmed.status}, not ${reported.status}`,
          {
            readBack: describe(confirmed),
          },
        );
        if ('done' in step && step.done === 'unconfirmed')
          await deps.completion.applyLocked(trx, charge, confirmed);
        return step;
      }
      payment = confirmed;
    }

    if (!(await record('applied'))) return { done: 'duplicate' };
    const before = charge.provider_status;
    const applied = await deps.completion.applyLocked(trx, charge, payment);
    const stale =
      !applied.transitioned && applied.charge.provider_status === before && before !== payment.status;
    if (stale) {
      await trx
        .updateTable('provider_notifications')
        .set({ outcome: 'stale' })
        .where('provider', '=', provider)
        .where('id', '=', notification.id)
        .execute();
    }
    return { done: stale ? 'stale' : 'applied' };
  }

  return {
    async receive(environment, provider, notification) {
      let readBack: ReadBack | undefined;
      let step: Step;
      for (;;) {
        const given = readBack;
        step = await deps.db
          .transaction()
          .execute((trx) => attempt(trx, environment, provider, notification, given));
        if ('done' in step) break;
        if (readBack !== undefined) throw new Error('a confirmed notification asked for a second read-back');
        // Outside any transaction: no lock is held while the acquirer is asked.
        try {
          readBack = await readBackPayment(environment, step.readBack);
        } catch (error) {
          if (error instanceof AcquirerUnavailableError) return err({ code: 'read_back_unavailable' });
          throw error;
        }
      }
      logger[step.done === 'mismatch' || step.done === 'unconfirmed' ? 'warn' : 'info'](
        {
          provider,
          notificationId: notification.id,
          type: notification.type,
          paymentId: notification.payment.id,
          outcome: step.done,
          readBack: readBack !== undefined,
        },
        'provider notification',
      );
      return ok(step.done);
    },
  };
}

/** What a log line and an alert may say of a payment: no card data beyond what the charge keeps. */
function describe(payment: AcquirerPayment): Record<string, unknown> {
  return {
    id: payment.id,
    reference: payment.reference,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
  };
}

const NotificationAckSchema = Type.Object(
  {
    received: Type.Boolean(),
    outcome: Type.Enum([...NOTIFICATION_OUTCOMES], {
      description:
        '`applied`: the charge knows it now; `stale`: older than what the charge knew; `duplicate`: this ' +
        'notification id was received before; `unknown_payment`: no charge of this environment has the ' +
        'payment; `mismatch`: refused, its payment reference, amount or currency differ from the charge ' +
        '(recorded and shown to the operator, never applied); `unconfirmed`: it would have credited money but the ' +
        "acquirer's read-back of the payment does not confirm it (recorded, shown to the operator; the " +
        'read-back state is applied instead). Each is final: the acquirer need not send it again.',
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
          'once; a late or out-of-order one never moves a final charge backwards. Its payment must match the ' +
          'charge (reference, amount, currency): a mismatch is acknowledged with outcome `mismatch`, recorded ' +
          'and raised to the operator, never applied. One that would credit money is applied only once a ' +
          'read-back of the payment from the acquirer confirms it; when the acquirer cannot be asked, the ' +
          'answer is 502 `provider_unavailable` and nothing is recorded, so the retry is confirmed later.',
        tags: ['Provider notifications'],
        security: [],
        response: { 200: NotificationAckSchema, ...errorResponses(400, 401, 413, 415, 500, 502) },
      },
      config: { auth: 'public' },
    },
    async (request) => {
      const acquirer = options.acquirer();
      if (!acquirer) throw toApiError(NOTIFICATION_ERRORS, { code: 'acquirer_not_configured' });
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const verified = verifySignature(
        raw,
        request.headers,
        acquirer.notificationSecret,
        options.clock.now(),
      );
      if (!verified.ok) throw toApiError(NOTIFICATION_ERRORS, verified.error);
      const notification = parseNotification(raw);
      if (!notification.ok) throw toApiError(NOTIFICATION_ERRORS, notification.error);
      const outcome = await options.inbox.receive(options.environment, acquirer.name, notification.value);
      if (!outcome.ok) throw toApiError(NOTIFICATION_ERRORS, outcome.error);
      return { received: true, outcome: outcome.value };
    },
  );
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

/** Refused (401 `unauthorized` at the edge) unless the timestamp is fresh and the signature is the secret's over it and the body. */
export function verifySignature(
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): Result<void, NotificationError> {
  const timestamp = header(headers, 'acquirer-timestamp');
  const signature = header(headers, 'acquirer-signature');
  if (timestamp === undefined || signature === undefined) return err({ code: 'unsigned' });
  if (!/^\d{1,12}$/.test(timestamp)) return err({ code: 'malformed_timestamp' });
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > NOTIFICATION_TOLERANCE_SECONDS) {
    return err({ code: 'timestamp_out_of_tolerance' });
  }
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))
    .digest('hex');
  if (!safeEqual(expected, signature)) return err({ code: 'bad_signature' });
  return ok();
}

function parseNotification(raw: Buffer): Result<ProviderNotification, NotificationError> {
  // Bounded depth and storable text, as every parsed body of the gateway (src/http/input.ts).
  const parsed = parseJsonText(raw.toString('utf8'));
  const body = parsed as Partial<ProviderNotification> | null;
  const payment = body?.payment as Partial<AcquirerPayment> | undefined;
  const problems: string[] = [];
  if (typeof body?.id !== 'string' || body.id.length === 0 || body.id.length > 100) problems.push('id');
  if (typeof body?.type !== 'string') problems.push('type');
  if (typeof payment?.id !== 'string') problems.push('payment.id');
  if (typeof payment?.reference !== 'string') problems.push('payment.reference');
  // Compared with the charge before anything is applied: a decimal string of minor units and a code.
  if (typeof payment?.amount !== 'string' || !/^(0|[1-9][0-9]{0,18})$/.test(payment.amount))
    problems.push('payment.amount');
  if (typeof payment?.currency !== 'string') problems.push('payment.currency');
  if (typeof payment?.status !== 'string' || !PROVIDER_STATUSES.includes(payment.status))
    problems.push('payment.status');
  // Written to the charge as they come: a malformed one must be refused here, not fail the write (a 500
  // the acquirer would retry for ever).
  problems.push(...nestedProblems(payment));
  if (problems.length > 0) return err({ code: 'invalid_notification', paths: problems });
  return ok(body as ProviderNotification);
}

const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const isIntegerIn = (value: unknown, min: number, max: number): boolean =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The paths of the payment's `card`, `failure` and `bankTransfer` that are neither absent, null nor well formed. */
function nestedProblems(payment: Partial<AcquirerPayment> | undefined): string[] {
  const problems: string[] = [];
  const { card, failure, bankTransfer } = (payment ?? {}) as Record<string, unknown>;
  if (card != null) {
    if (!isObject(card)) problems.push('payment.card');
    else {
      if (!isText(card.brand, 50)) problems.push('payment.card.brand');
      if (typeof card.last4 !== 'string' || !/^[0-9]{4}$/.test(card.last4))
        problems.push('payment.card.last4');
      if (!isIntegerIn(card.expMonth, 1, 12)) problems.push('payment.card.expMonth');
      if (!isIntegerIn(card.expYear, 2000, 9999)) problems.push('payment.card.expYear');
    }
  }
  if (failure != null) {
    if (!isObject(failure)) problems.push('payment.failure');
    else {
      if (typeof failure.code !== 'string' || !/^[\w.-]{1,64}$/.test(failure.code))
        problems.push('payment.failure.code');
      if (typeof failure.message !== 'string') problems.push('payment.failure.message');
    }
  }
  if (bankTransfer != null) {
    if (!isObject(bankTransfer)) problems.push('payment.bankTransfer');
    else {
      for (const member of ['iban', 'accountHolder', 'paymentReference'] as const)
        if (!isText(bankTransfer[member], 200)) problems.push(`payment.bankTransfer.${member}`);
    }
  }
  return problems;
}
