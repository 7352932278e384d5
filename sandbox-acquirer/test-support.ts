/** Helpers of the sandbox acquirer's own tests (not used by the acquirer itself). */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandboxAcquirer, type SandboxAcquirer, type SandboxAcquirerOptions } from './server.js';

export const API_KEY = 'sa_test_0123456789abcdef';
export const NOTIFICATION_SECRET = 'sa_notification_secret_test';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** The API key to send; null for none. Default: the right one. */
  apiKey?: string | null;
  signal?: AbortSignal;
  redirect?: 'follow' | 'manual' | 'error';
}

/** A client of one acquirer, through a real socket. */
export interface AcquirerClient {
  readonly url: string;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

export function acquirerClient(url: string): AcquirerClient {
  return {
    url,
    async request<T>(method: string, path: string, options: RequestOptions = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const apiKey = options.apiKey === undefined ? API_KEY : options.apiKey;
      if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        body,
        signal: options.signal,
        redirect: options.redirect ?? 'manual',
      });
      const text = await response.text();
      const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
      return {
        status: response.status,
        headers: response.headers,
        text,
        body: (isJson ? JSON.parse(text) : text) as T,
      };
    },
  };
}

export interface TestAcquirer {
  acquirer: SandboxAcquirer;
  api: AcquirerClient;
  close(): Promise<void>;
}

export async function startTestAcquirer(
  options: Partial<SandboxAcquirerOptions> = {},
): Promise<TestAcquirer> {
  const acquirer = await startSandboxAcquirer({
    apiKey: API_KEY,
    notificationSecret: NOTIFICATION_SECRET,
    port: 0,
    ...options,
  });
  return { acquirer, api: acquirerClient(acquirer.url), close: () => acquirer.close() };
}

/** A payment as the tests read it. */
export interface PaymentBody {
  id: string;
  reference: string;
  amount: string;
  method: string;
  status: string;
  description: string | null;
  notificationUrl: string | null;
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  bankTransfer: { iban: string; accountHolder: string; paymentReference: string } | null;
  challenge: { id: string; url: string } | null;
  failure: { code: string; message: string } | null;
  attempts: number;
  maxAttempts: number;
  refundedAmount: string;
  refunds: { id: string; amount: string }[];
  attempt?: { outcome: string; failure: { code: string; message: string } | null };
}

export interface ErrorBody {
  error: { code: string; message: string; status: string | null };
}

let counter = 0;

/** A fresh merchant-side reference, unique within the test run. */
export function uniqueReference(): string {
  counter += 1;
  return `ch_test_${process.pid}_${Date.now()}_${counter}`;
}

export async function createPayment(
  api: AcquirerClient,
  fields: Record<string, unknown> = {},
  idempotencyKey: string = uniqueReference(),
): Promise<PaymentBody> {
  const response = await api.request<PaymentBody>('POST', '/v1/payments', {
    headers: { 'idempotency-key': idempotencyKey },
    body: { amount: '12550', currency: 'TRY', method: 'card', reference: uniqueReference(), ...fields },
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return response.body;
}

/** A card attempt with a future expiry, a 3-digit CVC and a return URL. */
export function cardAttempt(
  number: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    number,
    expMonth: 12,
    expYear: 2099,
    cvc: '123',
    holderName: 'A Customer',
    returnUrl: 'https://shop.example/return?order=42',
    ...overrides,
  };
}

export async function authorize(api: AcquirerClient, paymentId: string, number: string) {
  return api.request<PaymentBody>('POST', `/v1/payments/${paymentId}/authorize`, {
    body: cardAttempt(number),
  });
}

/** One request a receiver got. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: {
    id: string;
    type: string;
    payment: PaymentBody;
    refund: { id: string } | null;
    dispute?: DisputeBody;
  };
  at: number;
}

/** A dispute resource as the tests read it. */
export interface DisputeBody {
  id: string;
  kind: string;
  paymentId: string;
  reference: string;
  amount: string;
  currency: string;
  reason: string;
  reasonCode: string;
  network: string;
  status: string;
  stage: string | null;
  evidenceDueBy: string | null;
  refundBy: string | null;
  fundsWithdrawn: boolean;
  amountWithdrawn: string;
  amountReinstated: string;
  movements: { id: string; type: string; amount: string; createdAt: string }[];
  evidence: { stage: string; text: string; submittedAt: string }[];
  alertId: string | null;
  escalatedAt: string | null;
  closedBy: string | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Raises a dispute resource through the control endpoint; throws unless it answers 201. */
export async function raiseDispute(
  api: AcquirerClient,
  fields: Record<string, unknown>,
): Promise<DisputeBody> {
  const response = await api.request<DisputeBody>('POST', '/_control/disputes', { body: fields });
  if (response.status !== 201) throw new Error(`raise failed: ${response.status} ${response.text}`);
  return response.body;
}

/** How a receiver answers its n-th request (1-based): a status, or 'hang' to never answer. */
export type ReceiverBehaviour = (request: ReceivedRequest, n: number) => number | 'hang';

/** A notification receiver on a real socket. */
export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  behaviour: ReceiverBehaviour;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: ReceiverBehaviour = () => 200): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const receiver: Receiver = { url: '', received, behaviour, close: async () => undefined };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const entry: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        rawBody,
        body: (rawBody === '' ? null : JSON.parse(rawBody)) as ReceivedRequest['body'],
        at: Date.now(),
      };
      received.push(entry);
      const answer = receiver.behaviour(entry, received.length);
      if (answer === 'hang') return;
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notifications`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Polls until `probe` returns something other than undefined (or throws after `timeoutMs`). */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waitFor: nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The requests a receiver got about one payment, in the order they arrived. */
export function receivedAbout(receiver: Receiver, paymentId: string): ReceivedRequest[] {
  return receiver.received.filter((request) => request.body?.payment.id === paymentId);
}

/** Waits until the receiver got at least `count` notifications about the payment, and answers them. */
export function untilReceived(
  receiver: Receiver,
  paymentId: string,
  count: number,
  timeoutMs = 5000,
): Promise<ReceivedRequest[]> {
  return waitFor(() => {
    const received = receivedAbout(receiver, paymentId);
    return received.length >= count ? received : undefined;
  }, timeoutMs);
}

/** A card payment of 125.50 TRY paid with `number` (which must be approved). */
export async function paidWith(
  api: AcquirerClient,
  number: string,
  fields: Record<string, unknown> = {},
): Promise<PaymentBody> {
  const payment = await createPayment(api, fields);
  const answer = await authorize(api, payment.id, number);
  if (answer.body.status !== 'succeeded') throw new Error(`payment failed: ${answer.text}`);
  return answer.body;
}
