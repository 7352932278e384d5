import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Clock } from '../src/shared/clock.js';
import { AcquirerError, errorBody } from './errors.js';
import type { ApiOperation, CallLog, FaultRule, FaultTable, FaultTarget } from './faults.js';
import type { PaymentStatus } from './model.js';
import { sleep } from './sleep.js';

/** What an operation answers, and what the call log records of it. */
export interface OperationResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  paymentId?: string | null;
  reference?: string | null;
}

/** The payment a call is about, as known before the work (for fault matching and error statuses). */
export interface CallTarget extends FaultTarget {
  paymentId: string | null;
  paymentStatus: PaymentStatus | null;
}

export interface OperationCall {
  operation: ApiOperation;
  target: CallTarget;
  idempotencyKey: string | null;
  /** The work: synchronous, so that nothing interleaves between its reads and writes. */
  run: () => OperationResult;
}

export interface DispatchDeps {
  faults: FaultTable;
  calls: CallLog;
  clock: Clock;
  /** Aborted when the acquirer closes. */
  lifetime: AbortSignal;
  /** Connections held open by `timeout` faults, ended on close. */
  held: Set<Socket>;
}

/** No payment known. */
export const NO_TARGET: CallTarget = Object.freeze({
  paymentId: null,
  paymentStatus: null,
  reference: null,
  amount: null,
});

/** Runs an API operation through the fault rules, records it in the call log and answers. */
export async function dispatch(
  deps: DispatchDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: OperationCall,
): Promise<FastifyReply> {
  const rule = deps.faults.take(call.operation, call.target);
  if (rule?.action === 'timeout') {
    record(deps, call, { status: null });
    return hold(deps, request, reply);
  }
  if (rule?.action === 'error') {
    const result = injectedError(rule, call.target);
    record(deps, call, result);
    return send(reply, result);
  }
  if (rule?.action === 'latency' && !(await sleep(rule.latencyMs ?? 0, deps.lifetime))) {
    return abandon(request, reply);
  }
  const result = execute(deps, call);
  record(deps, call, result);
  if (rule?.action === 'delay_response' && !(await sleep(rule.latencyMs ?? 0, deps.lifetime))) {
    return abandon(request, reply);
  }
  return send(reply, result);
}

function execute(deps: DispatchDeps, call: OperationCall): OperationResult {
  try {
    return call.run();
  } catch (error) {
    if (!(error instanceof AcquirerError)) {
      record(deps, call, { status: 500 });
      throw error;
    }
    const status = error.paymentStatus ?? call.target.paymentStatus;
    return { status: error.httpStatus, body: errorBody(error.code, error.message, status) };
  }
}

function injectedError(rule: FaultRule, target: CallTarget): OperationResult {
  const code = rule.code ?? 'fault_injected';
  const message = rule.message ?? 'Fault injected by the sandbox acquirer.';
  return { status: rule.status ?? 500, body: errorBody(code, message, target.paymentStatus) };
}

function record(
  deps: DispatchDeps,
  call: OperationCall,
  result: { status: number | null; paymentId?: string | null; reference?: string | null },
): void {
  deps.calls.record({
    operation: call.operation,
    paymentId: result.paymentId ?? call.target.paymentId,
    idempotencyKey: call.idempotencyKey,
    reference: result.reference ?? call.target.reference,
    status: result.status,
    at: deps.clock.now().toISOString(),
  });
}

function send(reply: FastifyReply, result: OperationResult): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  return result.body === undefined ? reply.send() : reply.send(result.body);
}

/** A `timeout` fault: the request is never answered; the socket stays open until the client gives up. */
function hold(deps: DispatchDeps, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  const socket = request.raw.socket;
  deps.held.add(socket);
  socket.once('close', () => deps.held.delete(socket));
  if (deps.lifetime.aborted) socket.destroy();
  return reply;
}

/** The acquirer closed during a wait: end the connection without an answer. */
function abandon(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.destroy();
  return reply;
}
