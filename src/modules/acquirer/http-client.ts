import { callAcquirer, type HttpAcquirerOptions } from './http-call.js';
import type {
  Acquirer,
  AcquirerDispute,
  AcquirerPayment,
  AcquirerRefund,
  AcquirerSettlementReport,
  AuthorizeOptions,
  CardAttempt,
  CardDetails,
  CreatePaymentInput,
} from './types.js';

/** The HTTP adapter of the acquirer protocol in docs/sandbox-acquirer.md. */
export function createHttpAcquirer(options: HttpAcquirerOptions): Acquirer {
  return {
    name: options.name,

    createPayment(input: CreatePaymentInput) {
      return callAcquirer<AcquirerPayment>(options, 'create_payment', {
        method: 'POST',
        path: '/v1/payments',
        idempotencyKey: input.idempotencyKey,
        body: {
          amount: input.amount,
          currency: input.currency,
          method: input.method,
          reference: input.reference,
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.notificationUrl !== undefined ? { notificationUrl: input.notificationUrl } : {}),
          ...(input.maxAttempts !== undefined ? { maxAttempts: input.maxAttempts } : {}),
        },
      });
    },

    getDispute(id: string) {
      return callAcquirer<AcquirerDispute>(options, 'get_dispute', {
        method: 'GET',
        path: `/v1/disputes/${encodeURIComponent(id)}`,
      });
    },

    submitDisputeEvidence(id: string, text: string) {
      // One submission per stage: a retry after a lost answer is a 409, which the caller reads back.
      return callAcquirer<AcquirerDispute>(options, 'submit_evidence', {
        method: 'POST',
        path: `/v1/disputes/${encodeURIComponent(id)}/evidence`,
        body: { text },
        retry: false,
      });
    },

    acceptDispute(id: string) {
      return callAcquirer<AcquirerDispute>(options, 'accept_dispute', {
        method: 'POST',
        path: `/v1/disputes/${encodeURIComponent(id)}/accept`,
        body: {},
      });
    },

    getPayment(id: string) {
      return callAcquirer<AcquirerPayment>(options, 'get_payment', {
        method: 'GET',
        path: `/v1/payments/${encodeURIComponent(id)}`,
      });
    },

    async findPayments(reference: string) {
      const page = await callAcquirer<{ data: AcquirerPayment[] }>(options, 'find_payments', {
        method: 'GET',
        path: `/v1/payments?reference=${encodeURIComponent(reference)}`,
      });
      return page.data;
    },

    settlementReport(date: string) {
      return callAcquirer<AcquirerSettlementReport>(options, 'settlement_report', {
        method: 'GET',
        path: `/v1/settlement-reports/${encodeURIComponent(date)}`,
      });
    },

    authorize(paymentId: string, card: CardDetails, returnUrl: string, attempt: AuthorizeOptions = {}) {
      const { threeDSecure } = attempt;
      return callAcquirer<AcquirerPayment & { attempt: CardAttempt }>(options, 'authorize', {
        method: 'POST',
        path: `/v1/payments/${encodeURIComponent(paymentId)}/authorize`,
        body: { ...card, returnUrl, ...(threeDSecure === undefined ? {} : { threeDSecure }) },
        retry: false,
      });
    },

    simulateTransfer(paymentId: string, amount?: string) {
      return callAcquirer<AcquirerPayment>(options, 'simulate_transfer', {
        method: 'POST',
        path: `/v1/payments/${encodeURIComponent(paymentId)}/simulate-transfer`,
        body: amount === undefined ? {} : { amount },
        retry: false,
      });
    },

    cancel(paymentId: string) {
      // Canceling a canceled payment answers it unchanged, so a retry is safe.
      return callAcquirer<AcquirerPayment>(options, 'cancel', {
        method: 'POST',
        path: `/v1/payments/${encodeURIComponent(paymentId)}/cancel`,
        body: {},
      });
    },

    refund(paymentId: string, input: { idempotencyKey: string; amount: string }) {
      return callAcquirer<AcquirerRefund>(options, 'refund', {
        method: 'POST',
        path: `/v1/payments/${encodeURIComponent(paymentId)}/refunds`,
        idempotencyKey: input.idempotencyKey,
        body: { amount: input.amount },
      });
    },
  };
}
