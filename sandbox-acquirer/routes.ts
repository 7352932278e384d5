import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../src/shared/canonical-json.js';
import type { Clock } from '../src/shared/clock.js';
import { challengePageCsp, renderChallengePage, returnLocation } from './challenge-page.js';
import { dispatch, NO_TARGET, type CallTarget, type DispatchDeps, type OperationResult } from './dispatch.js';
import { errorBody } from './errors.js';
import type { DisputeFundsLine, DisputeMovement, SettlementReport } from './model.js';
import type { PaymentService } from './payments.js';
import type { AcquirerStore } from './store.js';
import {
  parseAuthorize,
  parseCancel,
  parseChallengeCode,
  parseChallengeForm,
  parseCreatePayment,
  parseFindQuery,
  parseIdempotencyKey,
  parseRefund,
  parseReportDate,
  parseSimulateTransfer,
} from './validation.js';

export interface RouteDeps extends DispatchDeps {
  store: AcquirerStore;
  payments: PaymentService;
  clock: Clock;
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;
type ChallengeRequest = FastifyRequest<{ Params: { challengeId: string } }>;

/** The `/v1` payment API (registered in a scope that authenticates). */
export function registerPaymentRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { payments } = deps;

  app.post('/v1/payments', (request, reply) =>
    dispatch(deps, request, reply, {
      operation: 'create_payment',
      target: createTarget(request.body),
      idempotencyKey: singleHeader(request.headers['idempotency-key']),
      run: () => {
        const idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key']);
        const input = parseCreatePayment(request.body);
        const { created, value } = payments.create(input, idempotencyKey, canonicalJson(request.body));
        return paymentResult(created ? 201 : 200, payments.view(value));
      },
    }),
  );

  app.get('/v1/payments', (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const reference = typeof query.reference === 'string' ? query.reference : null;
    return dispatch(deps, request, reply, {
      operation: 'find_payments',
      target: { ...NO_TARGET, reference },
      idempotencyKey: null,
      run: () => {
        const found = payments.findByReference(parseFindQuery(request.query));
        return { status: 200, body: { data: found.map((payment) => payments.view(payment)) } };
      },
    });
  });

  app.get('/v1/payments/:id', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'get_payment', () =>
      paymentResult(200, payments.view(payments.get(request.params.id))),
    ),
  );

  app.post('/v1/payments/:id/authorize', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'authorize', () => {
      const attempt = parseAuthorize(request.body, deps.clock.now());
      const result = payments.authorize(request.params.id, attempt);
      return paymentResult(200, { ...payments.view(result.payment), attempt: result.attempt });
    }),
  );

  app.post('/v1/payments/:id/challenge', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'challenge', () => {
      const code = parseChallengeCode(request.body);
      const completion = payments.completeChallengeOfPayment(request.params.id, code);
      if (completion.succeeded) return paymentResult(200, completion.payment);
      const message = `The 3-D Secure code is wrong or the issuer refused it: the attempt is declined (attempt ${completion.payment.attempts} of ${completion.payment.maxAttempts}).`;
      return { status: 400, body: errorBody('challenge_failed', message, completion.payment.status) };
    }),
  );

  // The day's settlement report (UTC): the gateway's reconciliation compares it with its ledger.
  app.get('/v1/settlement-reports/:date', (request: FastifyRequest<{ Params: { date: string } }>, reply) =>
    dispatch(deps, request, reply, {
      operation: 'settlement_report',
      target: NO_TARGET,
      idempotencyKey: null,
      run: () => ({ status: 200, body: settlementReport(deps.store, parseReportDate(request.params.date)) }),
    }),
  );

  app.post('/v1/payments/:id/simulate-transfer', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'simulate_transfer', () => {
      const { amount } = parseSimulateTransfer(request.body);
      return paymentResult(200, payments.view(payments.simulateTransfer(request.params.id, amount)));
    }),
  );

  app.post('/v1/payments/:id/cancel', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'cancel', () => {
      parseCancel(request.body);
      return paymentResult(200, payments.view(payments.cancel(request.params.id)));
    }),
  );

  app.post('/v1/payments/:id/refunds', (request: IdRequest, reply) =>
    paymentOperation(deps, request, reply, 'refund', () => {
      const idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key']);
      const { amount } = parseRefund(request.body);
      const fingerprint = canonicalJson({ paymentId: request.params.id, body: request.body });
      const { created, value } = payments.refund(request.params.id, amount, idempotencyKey, fingerprint);
      return { status: created ? 201 : 200, body: value, paymentId: value.paymentId };
    }),
  );
}

/** The issuer's 3-D Secure page, opened by the customer's browser (no API key). */
export function registerChallengePageRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { payments } = deps;

  app.get('/3ds/:challengeId', (request: ChallengeRequest, reply) => {
    const { challenge, payment } = payments.openChallengeOf(request.params.challengeId);
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', challengePageCsp(challenge.returnUrl))
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .send(renderChallengePage(challenge, payment));
  });

  app.post('/3ds/:challengeId', (request: ChallengeRequest, reply) => {
    const challenge = deps.store.challenge(request.params.challengeId);
    return dispatch(deps, request, reply, {
      operation: 'challenge',
      target: challenge ? paymentTarget(deps, challenge.paymentId) : NO_TARGET,
      idempotencyKey: null,
      run: () => {
        const code = parseChallengeForm(request.body);
        const completion = payments.completeChallenge(request.params.challengeId, code);
        return {
          status: 303,
          headers: { location: returnLocation(completion.returnUrl, completion.payment.id) },
          paymentId: completion.payment.id,
          reference: completion.payment.reference,
        };
      },
    });
  });
}

function paymentOperation(
  deps: RouteDeps,
  request: IdRequest,
  reply: FastifyReply,
  operation: 'get_payment' | 'authorize' | 'challenge' | 'simulate_transfer' | 'cancel' | 'refund',
  run: () => OperationResult,
): Promise<FastifyReply> {
  return dispatch(deps, request, reply, {
    operation,
    target: paymentTarget(deps, request.params.id),
    idempotencyKey: operation === 'refund' ? singleHeader(request.headers['idempotency-key']) : null,
    run,
  });
}

/** The payment a call is about, as known before the work. */
export function paymentTarget(deps: Pick<RouteDeps, 'store'>, id: string): CallTarget {
  const payment = deps.store.payment(id);
  return {
    paymentId: id,
    paymentStatus: payment?.status ?? null,
    reference: payment?.reference ?? null,
    amount: payment?.amount ?? null,
  };
}

/** What a create body says about its payment, for rules that match on reference or amount. */
function createTarget(body: unknown): CallTarget {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  return {
    ...NO_TARGET,
    reference: typeof fields.reference === 'string' ? fields.reference : null,
    amount: typeof fields.amount === 'string' ? fields.amount : null,
  };
}

function paymentResult<T extends { id: string; reference: string }>(
  status: number,
  payment: T,
): OperationResult {
  return { status, body: payment, paymentId: payment.id, reference: payment.reference };
}

function singleHeader(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

const SETTLED: ReadonlySet<string> = new Set(['succeeded', 'partially_refunded', 'refunded']);

/**
 * The payments that succeeded on `date` (UTC) and the refunds made on it, oldest first, and the dispute
 * funds movements of the day (only on a day that has some, so that a report without disputes is what it
 * always was). A payment from a journal written before `succeededAt` existed is dated by its last change.
 */
export function settlementReport(store: AcquirerStore, date: string): SettlementReport {
  const onDate = (iso: string) => iso.slice(0, 10) === date;
  const payments = store
    .allPayments()
    .filter((payment) => SETTLED.has(payment.status))
    .map((payment) => ({
      id: payment.id,
      reference: payment.reference,
      amount: payment.amount,
      succeededAt: payment.succeededAt ?? payment.updatedAt,
    }))
    .filter((payment) => onDate(payment.succeededAt))
    .sort((a, b) => a.succeededAt.localeCompare(b.succeededAt) || a.id.localeCompare(b.id));
  const refunds = store
    .allRefunds()
    .filter((refund) => onDate(refund.createdAt))
    .map((refund) => ({
      id: refund.id,
      paymentId: refund.paymentId,
      reference: store.payment(refund.paymentId)?.reference ?? '',
      amount: refund.amount,
      createdAt: refund.createdAt,
    }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const sum = (lines: { amount: string }[]) => lines.reduce((total, line) => total + BigInt(line.amount), 0n);
  const paid = sum(payments);
  const refunded = sum(refunds);
  const debits = disputeFundsLines(store, 'funds_withdrawn', onDate);
  const reversals = disputeFundsLines(store, 'funds_reinstated', onDate);
  const head = { date, currency: 'TRY' as const, payments, refunds };
  if (debits.length === 0 && reversals.length === 0) {
    const net = (paid - refunded).toString();
    return { ...head, totals: { payments: paid.toString(), refunds: refunded.toString(), net } };
  }
  const debited = sum(debits);
  const reinstated = sum(reversals);
  return {
    ...head,
    disputeDebits: debits,
    disputeReversals: reversals,
    totals: {
      payments: paid.toString(),
      refunds: refunded.toString(),
      disputeDebits: debited.toString(),
      disputeReversals: reinstated.toString(),
      net: (paid - refunded - debited + reinstated).toString(),
    },
  };
}

/** The dispute funds movements of one type made on the report's date, oldest first. */
function disputeFundsLines(
  store: AcquirerStore,
  type: DisputeMovement['type'],
  onDate: (iso: string) => boolean,
): DisputeFundsLine[] {
  return store
    .allDisputes()
    .flatMap((dispute) =>
      dispute.movements
        .filter((movement) => movement.type === type && onDate(movement.createdAt))
        .map((movement) => ({
          id: movement.id,
          disputeId: dispute.id,
          paymentId: dispute.paymentId,
          reference: dispute.reference,
          amount: movement.amount,
          createdAt: movement.createdAt,
        })),
    )
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
