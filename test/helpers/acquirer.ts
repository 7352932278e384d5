import { request } from './http.js';

export interface FaultRule {
  operation:
    | 'create_payment'
    | 'get_payment'
    | 'find_payments'
    | 'authorize'
    | 'challenge'
    | 'simulate_transfer'
    | 'cancel'
    | 'refund'
    | 'settlement_report'
    | 'get_dispute'
    | 'list_disputes'
    | 'submit_evidence'
    | 'accept_dispute'
    | 'notification'
    | '*';
  action: 'latency' | 'delay_response' | 'error' | 'timeout' | 'drop';
  latencyMs?: number;
  status?: number;
  code?: string;
  message?: string;
  times?: number;
  match?: { reference?: string; amount?: string };
}

export interface AcquirerCall {
  operation: string;
  paymentId: string | null;
  idempotencyKey: string | null;
  reference: string | null;
  status: number;
  at: string;
}

export interface AcquirerPaymentBody {
  id: string;
  reference: string;
  amount: string;
  status: string;
  method: string;
  [member: string]: unknown;
}

/** A fault that has the acquirer answer `operation` with an error (each time unless `times` says). */
export const errorFault = (
  operation: FaultRule['operation'],
  status: number,
  code: string,
  more: Pick<FaultRule, 'message' | 'times' | 'match'> = {},
): FaultRule => ({ operation, action: 'error', status, code, ...more });

/** A fault that has the acquirer answer `operation` `latencyMs` late (each time unless `times` says). */
export const latencyFault = (
  operation: FaultRule['operation'],
  latencyMs: number,
  more: Pick<FaultRule, 'times' | 'match'> = {},
): FaultRule => ({ operation, action: 'latency', latencyMs, ...more });

/** The sandbox acquirer's own API and its `/_control` endpoints (docs/sandbox-acquirer.md), over HTTP. */
export function acquirerControl(acquirer: { url: string; apiKey: string }) {
  const headers = { authorization: `Bearer ${acquirer.apiKey}` };
  const ok = async <T>(promise: Promise<{ status: number; body: unknown; text: string }>): Promise<T> => {
    const result = await promise;
    if (result.status >= 300) throw new Error(`sandbox acquirer answered ${result.status}: ${result.text}`);
    return result.body as T;
  };
  return {
    addFault: (rule: FaultRule) =>
      ok<{ id: string }>(request(`${acquirer.url}/_control/faults`, { body: rule, headers })),
    clearFaults: () => ok(request(`${acquirer.url}/_control/faults`, { method: 'DELETE', headers })),
    /** The calls the acquirer received, newest last: of one operation, and of one payment. */
    calls: async (operation?: string, paymentId?: string) => {
      const query = new URLSearchParams({
        ...(operation ? { operation } : {}),
        ...(paymentId ? { paymentId } : {}),
      }).toString();
      return (
        await ok<{ data: AcquirerCall[] }>(
          request(`${acquirer.url}/_control/calls${query ? `?${query}` : ''}`, { headers }),
        )
      ).data;
    },
    paymentsFor: async (reference: string) =>
      (
        await ok<{ data: AcquirerPaymentBody[] }>(
          request(`${acquirer.url}/v1/payments?reference=${encodeURIComponent(reference)}`, { headers }),
        )
      ).data,
    payment: (id: string) =>
      ok<AcquirerPaymentBody>(request(`${acquirer.url}/v1/payments/${encodeURIComponent(id)}`, { headers })),
    /** Pays with a test card as the checkout would (the acquirer then notifies); the raw answer. */
    authorize: (paymentId: string, number = '4242424242424242') =>
      request<AcquirerPaymentBody>(`${acquirer.url}/v1/payments/${encodeURIComponent(paymentId)}/authorize`, {
        body: {
          number,
          expMonth: 12,
          expYear: 2030,
          cvc: '123',
          holderName: 'Test Customer',
          returnUrl: 'https://shop.example/back',
        },
        headers,
      }),
  };
}
