import { createHmac } from 'node:crypto';
import { Type } from 'typebox';
import type { Environment } from '../../db/schema.js';
import { parseJsonText } from '../../http/input.js';
import { errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import { safeEqual } from '../../shared/crypto.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AcquirerPayment, ProviderStatus } from '../acquirer/types.js';
import { NOTIFICATION_ERRORS, type NotificationError } from './errors.js';
import { NOTIFICATION_OUTCOMES, type NotificationInbox, type ProviderNotification } from './notifications.js';

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
          'answer is 502 `provider_unavailable` and nothing is recorded, so the retry is confirmed later. A ' +
          "dispute's notification (a `dispute` member: disputes, inquiries, early fraud warnings, pre-dispute " +
          'alerts) is a trigger only: the case is read back from the acquirer and that answer applied ' +
          '(docs/disputes.md).',
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
  // A dispute's notification only names its case: the gateway reads the case back and applies that.
  const dispute = (body as { dispute?: unknown } | null)?.dispute;
  if (dispute != null) {
    if (!isObject(dispute) || typeof dispute.id !== 'string' || !/^[\w-]{1,100}$/.test(dispute.id))
      problems.push('dispute.id');
  }
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
