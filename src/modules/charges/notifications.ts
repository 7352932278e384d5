import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerDispute,
  type AcquirerPayment,
} from '../acquirer/types.js';
import { paymentDifferences, wouldCredit } from './apply-payment.js';
import type { ChargeCompletionService } from './completion.js';
import type { NotificationError } from './errors.js';
import type { ChargeRow } from './model.js';
import * as charges from './repository/charges.js';

export interface ProviderNotification {
  id: string;
  type: string;
  createdAt: string;
  payment: AcquirerPayment;
  /** A dispute's notification (`dispute.*`, `fraud_warning.*`, `dispute_alert.*`): the case as it was then. */
  dispute?: AcquirerDispute | null;
}

/**
 * What the inbox needs of the disputes module (src/modules/disputes), which implements it: a dispute's
 * notification is a trigger, and the dispute read back from the acquirer is applied in the transaction
 * that records the notification, under the charge's row lock (docs/decisions/0076-disputes.md).
 */
export interface DisputeNotifications {
  /** The members of a read-back that cannot be applied (empty when it can). */
  problemsOf(resource: AcquirerDispute): string[];
  apply(
    trx: Trx,
    provider: string,
    charge: ChargeRow,
    resource: AcquirerDispute,
  ): Promise<'applied' | 'stale'>;
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

/** What the acquirer answered when asked for the payment or the dispute: it, or its refusal (4xx). */
type ReadBack =
  { payment: AcquirerPayment } | { dispute: AcquirerDispute } | { refused: AcquirerRejectedError };

type Step = { done: NotificationOutcome } | { readBack: string } | { readBackDispute: string };

export interface NotificationInboxDeps {
  db: Kdb;
  clock: Clock;
  completion: ChargeCompletionService;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  alerts: AlertRaiser;
  logger: Logger;
  disputes: DisputeNotifications;
}

export function createNotificationInbox(deps: NotificationInboxDeps): NotificationInbox {
  return {
    receive: (environment, provider, notification) => receive(deps, environment, provider, notification),
  };
}

async function receive(
  deps: NotificationInboxDeps,
  environment: Environment,
  provider: string,
  notification: ProviderNotification,
): Promise<Result<NotificationOutcome, NotificationError>> {
  let readBack: ReadBack | undefined;
  let step: Step;
  for (;;) {
    const given = readBack;
    step = await deps.db
      .transaction()
      .execute((trx) => attempt(deps, trx, environment, provider, notification, given));
    if ('done' in step) break;
    if (readBack !== undefined) throw new Error('a confirmed notification asked for a second read-back');
    // Outside any transaction: no lock is held while the acquirer is asked.
    try {
      readBack =
        'readBack' in step
          ? await readBackPayment(deps, environment, step.readBack)
          : await readBackDispute(deps, environment, step.readBackDispute);
    } catch (error) {
      if (error instanceof AcquirerUnavailableError) return err({ code: 'read_back_unavailable' });
      throw error;
    }
  }
  deps.logger[step.done === 'mismatch' || step.done === 'unconfirmed' ? 'warn' : 'info'](
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
}

function readBackPayment(
  deps: Pick<NotificationInboxDeps, 'acquirerFor'>,
  environment: Environment,
  paymentId: string,
): Promise<ReadBack> {
  return readBackWith(deps, environment, async (acquirer) => ({
    payment: await acquirer.getPayment(paymentId),
  }));
}

function readBackDispute(
  deps: Pick<NotificationInboxDeps, 'acquirerFor'>,
  environment: Environment,
  disputeId: string,
): Promise<ReadBack> {
  return readBackWith(deps, environment, async (acquirer) => ({
    dispute: await acquirer.getDispute(disputeId),
  }));
}

async function readBackWith(
  deps: Pick<NotificationInboxDeps, 'acquirerFor'>,
  environment: Environment,
  read: (acquirer: Acquirer) => Promise<ReadBack>,
): Promise<ReadBack> {
  const acquirer = deps.acquirerFor(environment);
  if (!acquirer) throw new AcquirerUnavailableError('no acquirer is configured to confirm the payment', 0);
  try {
    return await read(acquirer);
  } catch (error) {
    // A "not now" 4xx refused nothing: the read-back is unavailable, and the notification is asked again.
    if (error instanceof AcquirerRejectedError && !error.transient) return { refused: error };
    if (error instanceof AcquirerRejectedError) {
      throw new AcquirerUnavailableError(`the acquirer asked to read the payment later: ${error.message}`, 0);
    }
    throw error;
  }
}

/** The notification being received, in the transaction that holds its charge's lock. */
interface Receipt {
  deps: NotificationInboxDeps;
  trx: Trx;
  provider: string;
  notification: ProviderNotification;
}

/** Records the notification with its outcome; false when its id was recorded before. */
async function record(
  { deps, trx, provider, notification }: Receipt,
  charge: ChargeRow | undefined,
  outcome: Exclude<NotificationOutcome, 'duplicate'>,
): Promise<boolean> {
  const reported = notification.payment;
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
}

/** Records a refused notification and raises it to the operator. */
async function refuse(
  receipt: Receipt,
  charge: ChargeRow,
  outcome: 'mismatch' | 'unconfirmed',
  reason: string,
  details: Record<string, unknown>,
): Promise<Step> {
  const { deps, trx, provider, notification } = receipt;
  const reported = notification.payment;
  if (!(await record(receipt, charge, outcome))) return { done: 'duplicate' };
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
}

/** `refuse` as unconfirmed: the acquirer refused to read the payment or the dispute back. */
function refuseReadBack(
  receipt: Receipt,
  charge: ChargeRow,
  what: 'payment' | 'dispute',
  refused: AcquirerRejectedError,
): Promise<Step> {
  return refuse(
    receipt,
    charge,
    'unconfirmed',
    `the acquirer refused to read the ${what} back (${refused.providerCode})`,
    { readBack: { providerCode: refused.providerCode, httpStatus: refused.providerHttpStatus } },
  );
}

/**
 * `refuse` as a mismatch, with the reason and the details `explain` gives, when `payment` differs from the
 * charge; undefined when it does not.
 */
async function refuseMismatch(
  receipt: Receipt,
  charge: ChargeRow,
  payment: AcquirerPayment,
  explain: (differences: string[]) => [reason: string, details: Record<string, unknown>],
): Promise<Step | undefined> {
  const differences = paymentDifferences(charge, payment);
  if (differences.length === 0) return undefined;
  return refuse(receipt, charge, 'mismatch', ...explain(differences));
}

/** One pass under the charge's lock; asks for a read-back (and writes nothing) when money would move. */
async function attempt(
  deps: NotificationInboxDeps,
  trx: Trx,
  environment: Environment,
  provider: string,
  notification: ProviderNotification,
  readBack: ReadBack | undefined,
): Promise<Step> {
  const reported = notification.payment;
  const charge = await charges.lockByPaymentId(trx, environment, reported.id);
  const receipt: Receipt = { deps, trx, provider, notification };
  if (!charge)
    return { done: (await record(receipt, charge, 'unknown_payment')) ? 'unknown_payment' : 'duplicate' };
  // Under the charge's lock, so a concurrent copy waits here and then finds this one.
  const seen = await trx
    .selectFrom('provider_notifications')
    .select('outcome')
    .where('provider', '=', provider)
    .where('id', '=', notification.id)
    .executeTakeFirst();
  if (seen) return { done: 'duplicate' };

  const mismatch = await refuseMismatch(receipt, charge, reported, (differences) => [
    `the notification's ${differences.join(', ')} differ from the charge`,
    { differences },
  ]);
  if (mismatch) return mismatch;
  if (notification.dispute != null) return attemptDispute(receipt, charge, notification.dispute.id, readBack);

  let payment: AcquirerPayment = reported;
  if (wouldCredit(charge, reported.status)) {
    if (readBack === undefined) return { readBack: reported.id };
    if ('refused' in readBack) return refuseReadBack(receipt, charge, 'payment', readBack.refused);
    if (!('payment' in readBack)) throw new Error('a payment notification was read back as a dispute');
    const confirmed = readBack.payment;
    const readBackMismatch = await refuseMismatch(receipt, charge, confirmed, (differences) => [
      `the acquirer's own record of the payment differs in ${differences.join(', ')}`,
      { differences, readBack: describe(confirmed) },
    ]);
    if (readBackMismatch) return readBackMismatch;
    if (!wouldCredit(charge, confirmed.status)) {
      // The acquirer's word is applied (it never credits here); the notification's claim is not.
      const step = await refuse(
        receipt,
        charge,
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

  return applyRecorded(
    receipt,
    async () => {
      const before = charge.provider_status;
      const applied = await deps.completion.applyLocked(trx, charge, payment);
      return !applied.transitioned && applied.charge.provider_status === before && before !== payment.status;
    },
    charge,
  );
}

/**
 * Records the notification as applied and runs `apply` (true when what it applied was stale), then marks
 * the record `stale` if so.
 */
async function applyRecorded(
  receipt: Receipt,
  apply: () => Promise<boolean>,
  charge: ChargeRow,
): Promise<Step> {
  const { trx, provider, notification } = receipt;
  if (!(await record(receipt, charge, 'applied'))) return { done: 'duplicate' };
  const stale = await apply();
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

/**
 * A dispute's notification, under the charge's lock: the dispute is read back and that answer applied by
 * the disputes module; a read-back that is refused, malformed or about another payment is recorded and
 * raised to the operator, never applied.
 */
async function attemptDispute(
  receipt: Receipt,
  charge: ChargeRow,
  disputeId: string,
  readBack: ReadBack | undefined,
): Promise<Step> {
  const { deps, trx, provider } = receipt;
  if (readBack === undefined) return { readBackDispute: disputeId };
  if ('refused' in readBack) return refuseReadBack(receipt, charge, 'dispute', readBack.refused);
  if (!('dispute' in readBack)) throw new Error('a dispute notification was read back as a payment');
  const resource = readBack.dispute;
  const problems = deps.disputes.problemsOf(resource);
  if (resource.id !== disputeId) problems.push('id');
  if (resource.paymentId !== charge.provider_payment_id) problems.push('paymentId');
  if (resource.reference !== charge.id) problems.push('reference');
  if (!problems.includes('amount') && BigInt(resource.amount) > BigInt(charge.amount))
    problems.push('amount');
  if (problems.length > 0) {
    return refuse(
      receipt,
      charge,
      'mismatch',
      `the acquirer's dispute ${disputeId} is unusable: ${problems.join(', ')}`,
      {
        differences: problems,
        dispute: { id: resource.id, kind: resource.kind, status: resource.status, amount: resource.amount },
      },
    );
  }
  return applyRecorded(
    receipt,
    async () => (await deps.disputes.apply(trx, provider, charge, resource)) === 'stale',
    charge,
  );
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
