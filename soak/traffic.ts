import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The soak's merchants and what the gateway acknowledged to them. A write counts as acknowledged when a
 * 2xx answer reached the client; every write is retried with the same idempotency key through network
 * errors, 5xx, 429 and in-flight conflicts (as the spec tells merchants to), so that a process killed
 * mid-request is seen from outside exactly as a merchant sees it.
 */
export interface SoakMerchant {
  organizationId: string;
  key: string;
  webhookSecret?: string;
}

export interface Acknowledged {
  /** Idempotency key -> charge id, for every charge a 2xx answered. */
  charges: Map<string, string>;
  /** Charge id -> amount of the charges whose card payment the gateway confirmed (GET says succeeded). */
  paid: Map<string, bigint>;
  /** Idempotency key -> refund, for every refund a 2xx answered. */
  refunds: Map<string, { id: string; chargeId: string; amount: bigint }>;
  /** Idempotency key -> charge id answered again on a retry: the same charge, never a second one. */
  replays: number;
  /** Settlement runs a 2xx answered, with their batch (none when nothing was released). */
  settlements: Array<{ organizationId: string; batchId: string | null; businessDate: string | null }>;
  /** Non-2xx answers and network failures met on the way (retried), by status or error code. */
  retried: Record<string, number>;
  /** Final answers that were not 2xx (not retried), by status and code: must all be explained. */
  refused: Record<string, number>;
}

export function newAcknowledged(): Acknowledged {
  return {
    charges: new Map(),
    paid: new Map(),
    refunds: new Map(),
    replays: 0,
    settlements: [],
    retried: {},
    refused: {},
  };
}

export interface Targets {
  /** Sandbox API base URLs of the api processes (one is picked per attempt, as a load balancer would). */
  sandboxApis: string[];
  /** Web listener base URLs (the hosted checkout). */
  webs: string[];
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

const ATTEMPT_TIMEOUT_MS = 15_000;
/** Longer than IDEMPOTENCY_LOCK_MS of the soak's processes, so a killed request's key is taken over. */
const OPERATION_DEADLINE_MS = 90_000;

const pick = <T>(items: T[]): T => items[randomInt(items.length)] as T;
const count = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1;
};

/** Whether an answer is worth the same request again: the gateway or the network was in trouble. */
function retryable(answer: Answer): boolean {
  if (answer.status >= 500 || answer.status === 429) return true;
  const code = (answer.body.error as { code?: string } | undefined)?.code;
  // Another attempt of the same key still holds it (its process may have died): it is taken over later.
  return answer.status === 409 && code === 'duplicate_request';
}

export class Traffic {
  constructor(
    private readonly targets: Targets,
    readonly acknowledged: Acknowledged,
  ) {}

  /** One API write or read, retried until a final answer (2xx or a 4xx that is not transient). */
  async api(
    merchant: SoakMerchant,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<Answer> {
    const deadline = Date.now() + OPERATION_DEADLINE_MS;
    for (let attempt = 0; ; attempt += 1) {
      const base = pick(this.targets.sandboxApis);
      let answer: Answer | undefined;
      try {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            'x-api-key': merchant.key,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey === undefined ? {} : { 'x-idempotency-key': idempotencyKey }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const text = await response.text();
        answer = { status: response.status, text, body: parse(text) };
      } catch (error) {
        count(this.acknowledged.retried, errorCode(error));
      }
      if (answer !== undefined && !retryable(answer)) return answer;
      if (answer !== undefined) count(this.acknowledged.retried, String(answer.status));
      if (Date.now() > deadline) {
        throw new Error(`${method} ${path} got no final answer in ${OPERATION_DEADLINE_MS} ms`);
      }
      await sleep(Math.min(2000, 100 * 2 ** Math.min(attempt, 4)) + randomInt(100));
    }
  }

  /** A card charge created and paid on the hosted checkout with a test card; refunds a share of them. */
  async chargeAndPay(merchant: SoakMerchant): Promise<void> {
    const amount = BigInt(1000 + randomInt(99_000));
    const key = `soak-charge-${randomUUID()}`;
    const body = {
      amount: amount.toString(),
      currency: 'TRY',
      paymentMethod: 'credit_card_tr',
      merchantReference: `soak-${randomUUID()}`,
    };
    const created = await this.api(merchant, 'POST', '/v1/charges', { ...body, amount: Number(amount) }, key);
    if (created.status !== 201 && created.status !== 200) {
      count(this.acknowledged.refused, `charge ${created.status} ${errorOf(created)}`);
      return;
    }
    const chargeId = String(created.body.id);
    const earlier = this.acknowledged.charges.get(key);
    if (earlier !== undefined) this.acknowledged.replays += 1;
    this.acknowledged.charges.set(key, chargeId);
    // The same key again: the same charge (idempotency), whatever process answers.
    if (randomInt(10) === 0) {
      const replay = await this.api(
        merchant,
        'POST',
        '/v1/charges',
        { ...body, amount: Number(amount) },
        key,
      );
      if (String(replay.body.id) !== chargeId) {
        count(this.acknowledged.refused, 'charge replay answered another charge');
      } else this.acknowledged.replays += 1;
    }

    // The hosted checkout's page of this charge: `{checkout_url}/c/<paymentId>`.
    const paymentId = new URL(String(created.body.paymentPageUrl)).pathname.split('/').pop() ?? '';
    if (!(await this.payByCard(merchant, chargeId, paymentId))) return;
    this.acknowledged.paid.set(chargeId, amount);

    if (randomInt(4) === 0) {
      const part = amount / 2n;
      await this.refund(merchant, chargeId, part);
      if (randomInt(2) === 0) await this.refund(merchant, chargeId, amount - part);
    }
  }

  private async refund(merchant: SoakMerchant, chargeId: string, amount: bigint): Promise<void> {
    const key = `soak-refund-${randomUUID()}`;
    const answer = await this.api(
      merchant,
      'POST',
      `/v1/charges/${chargeId}/refunds`,
      { amount: Number(amount) },
      key,
    );
    if (answer.status !== 201 && answer.status !== 200) {
      count(this.acknowledged.refused, `refund ${answer.status} ${errorOf(answer)}`);
      return;
    }
    this.acknowledged.refunds.set(key, { id: String(answer.body.id), chargeId, amount });
  }

  /**
   * Posts the card form of the hosted checkout until the charge is seen paid through the API (a killed
   * process may have authorized it without answering, or not at all). Each payer has an address of its
   * own behind the trusted proxy, as on a real checkout behind a load balancer.
   */
  private async payByCard(merchant: SoakMerchant, chargeId: string, paymentId: string): Promise<boolean> {
    const payer = `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
    const deadline = Date.now() + OPERATION_DEADLINE_MS;
    for (;;) {
      try {
        const response = await fetch(`${pick(this.targets.webs)}/c/${paymentId}/card`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': payer },
          body: new URLSearchParams({
            holderName: 'Soak Payer',
            cardNumber: '4242 4242 4242 4242',
            expiry: '12/30',
            cvc: '123',
          }).toString(),
          redirect: 'manual',
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        if (response.status >= 400) count(this.acknowledged.retried, `checkout ${response.status}`);
      } catch (error) {
        count(this.acknowledged.retried, `checkout ${errorCode(error)}`);
      }
      const charge = await this.api(merchant, 'GET', `/v1/charges/${chargeId}`);
      if (charge.body.status === 'succeeded') return true;
      if (charge.body.status === 'failed' || charge.body.status === 'expired') {
        count(this.acknowledged.refused, `charge ${String(charge.body.status)} at checkout`);
        return false;
      }
      if (Date.now() > deadline)
        throw new Error(`charge ${chargeId} not paid in ${OPERATION_DEADLINE_MS} ms`);
      await sleep(200 + randomInt(300));
    }
  }

  /** `POST /v1/test-helpers/settle`: the same code as the 03:00 batch, for the sandbox balance. */
  async settle(merchant: SoakMerchant): Promise<void> {
    const answer = await this.api(merchant, 'POST', '/v1/test-helpers/settle', {});
    if (answer.status !== 200) {
      count(this.acknowledged.refused, `settle ${answer.status} ${errorOf(answer)}`);
      return;
    }
    const batch = answer.body.batch as { id?: string; businessDate?: string } | null;
    this.acknowledged.settlements.push({
      organizationId: merchant.organizationId,
      batchId: batch?.id ?? null,
      businessDate: batch?.businessDate ?? null,
    });
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function errorOf(answer: Answer): string {
  return String((answer.body.error as { code?: string } | undefined)?.code ?? answer.text.slice(0, 80));
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as Error).name ?? 'error';
}
