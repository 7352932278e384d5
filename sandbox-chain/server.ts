import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { systemClock, type Clock } from '../src/shared/clock.js';
import { safeEqual } from '../src/shared/crypto.js';
import { checkAddress, type Network } from '../src/shared/chain-address.js';

/**
 * The sandbox chain (docs/sandbox-chain.md): a simulated USDT ledger on TRON and Ethereum, in memory. The
 * gateway's sandbox payouts are sent through its sender API; its explorer API stands in for a block
 * explorer (the chain watcher's contract); its control API mines blocks, injects faults and records
 * transfers sent from elsewhere (an operator's custody tool). It never touches a real network.
 */
export interface SandboxChainOptions {
  host?: string;
  port?: number;
  /** Bearer credential of the sender and control APIs. */
  apiKey: string;
  /** Blocks that must include or follow a transfer before it is `confirmed` (default 3). */
  confirmations?: number;
  /** A block every this many ms; 0 (the default) mines only on `POST /_control/mine`. */
  blockIntervalMs?: number;
  /** The rate feed's initial rate, USDT per TRY. */
  rate?: string;
  /**
   * The feed quotes its rate at the time of asking (a feed that keeps ticking at a constant rate) until
   * `POST /_control/rate` sets a rate and its time. Off (the default): the initial rate is dated at start.
   */
  rateFollowsClock?: boolean;
  clock?: Clock;
  logger?: Logger;
  /**
   * Crash tests (in-process chains only): told of every new send (`idempotencyKey` = the payout id)
   * before the chain records it; `abort_before_record` drops the request unanswered and unrecorded (it
   * never reached the chain), `abort_after_record` records the transfer and drops the answer (the sender
   * never learns its hash). The test kills the sender at that moment.
   */
  interceptSend?: (send: {
    idempotencyKey: string;
  }) => 'continue' | 'abort_before_record' | 'abort_after_record';
}

export interface SandboxChain {
  readonly url: string;
  close(): Promise<void>;
}

type Fault = 'drop' | 'fail' | 'slow' | 'duplicate_hash' | 'error_5xx';
type TransferStatus = 'pending' | 'confirmed' | 'failed' | 'dropped';

interface Transfer {
  id: string;
  idempotencyKey: string | null;
  fingerprint: string;
  network: Network;
  to: string;
  amount: string;
  txHash: string;
  /** The height when it was broadcast; it is mined in the next block. */
  broadcastAt: number;
  blockNumber: number | null;
  fault: Exclude<Fault, 'duplicate_hash' | 'error_5xx'> | null;
  confirmedAt: string | null;
}

const NETWORKS: readonly Network[] = ['tron', 'ethereum'];
const AMOUNT = /^[1-9][0-9]{0,24}$/;
const DROP_AFTER_BLOCKS = 3;
const SLOW_EXTRA_BLOCKS = 5;

export async function startSandboxChain(options: SandboxChainOptions): Promise<SandboxChain> {
  if (!options.apiKey) throw new Error('startSandboxChain: apiKey is required.');
  const clock = options.clock ?? systemClock;
  const required = options.confirmations ?? 3;
  const logger = options.logger ?? pino({ level: 'silent' });
  const state = {
    height: 1,
    rate: (options.rate ?? '0.0285') as string | null,
    rateAt: options.rateFollowsClock ? null : (clock.now() as Date | null),
    latencyMs: 0,
    faults: [] as Fault[],
    byKey: new Map<string, Transfer>(),
    byHash: new Map<string, Transfer>(),
    all: [] as Transfer[],
  };

  const statusOf = (transfer: Transfer): { status: TransferStatus; confirmations: number } => {
    if (transfer.fault === 'drop') {
      return {
        status: state.height >= transfer.broadcastAt + DROP_AFTER_BLOCKS ? 'dropped' : 'pending',
        confirmations: 0,
      };
    }
    if (transfer.blockNumber === null) return { status: 'pending', confirmations: 0 };
    const confirmations = state.height - transfer.blockNumber + 1;
    if (transfer.fault === 'fail') return { status: 'failed', confirmations };
    const needed = required + (transfer.fault === 'slow' ? SLOW_EXTRA_BLOCKS : 0);
    return { status: confirmations >= needed ? 'confirmed' : 'pending', confirmations };
  };

  const mine = (blocks: number) => {
    for (let i = 0; i < blocks; i++) {
      state.height += 1;
      for (const transfer of state.all) {
        if (transfer.blockNumber === null && transfer.fault !== 'drop') transfer.blockNumber = state.height;
        if (transfer.confirmedAt === null && statusOf(transfer).status === 'confirmed') {
          transfer.confirmedAt = clock.now().toISOString();
        }
      }
    }
  };

  const view = (transfer: Transfer) => ({
    id: transfer.id,
    idempotencyKey: transfer.idempotencyKey,
    network: transfer.network,
    to: transfer.to,
    amount: transfer.amount,
    token: 'USDT',
    txHash: transfer.txHash,
    ...statusOf(transfer),
    blockNumber: transfer.blockNumber,
    confirmedAt: transfer.confirmedAt,
  });

  const newHash = (network: Network) => {
    const hex = randomBytes(32).toString('hex');
    return network === 'ethereum' ? `0x${hex}` : hex;
  };

  const record = (input: {
    network: Network;
    to: string;
    amount: string;
    key: string | null;
    fingerprint: string;
  }) => {
    const fault = state.faults.shift() ?? null;
    const previous = state.all[state.all.length - 1];
    const transfer: Transfer = {
      id: `tr_${randomBytes(10).toString('hex')}`,
      idempotencyKey: input.key,
      fingerprint: input.fingerprint,
      network: input.network,
      to: input.to,
      amount: input.amount,
      // The "hash reported twice" fault: the previous transfer's hash, told for this one too.
      txHash: fault === 'duplicate_hash' && previous ? previous.txHash : newHash(input.network),
      broadcastAt: state.height,
      blockNumber: null,
      fault: fault === 'drop' || fault === 'fail' || fault === 'slow' ? fault : null,
      confirmedAt: null,
    };
    state.all.push(transfer);
    if (!state.byHash.has(transfer.txHash)) state.byHash.set(transfer.txHash, transfer);
    if (input.key !== null) state.byKey.set(input.key, transfer);
    return transfer;
  };

  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
  const authorized = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const header = request.headers.authorization ?? '';
    if (header.startsWith('Bearer ') && safeEqual(header.slice(7), options.apiKey)) return true;
    void reply.code(401).send({ error: { code: 'unauthorized', message: 'Bearer API key required.' } });
    return false;
  };
  const invalid = (reply: FastifyReply, message: string) =>
    reply.code(400).send({ error: { code: 'invalid_request', message } });
  const body = (request: FastifyRequest) =>
    (request.body !== null && typeof request.body === 'object' ? request.body : {}) as Record<
      string,
      unknown
    >;
  const readTransfer = (input: Record<string, unknown>) => {
    const { network, to, amount } = input;
    if (typeof network !== 'string' || !(NETWORKS as readonly string[]).includes(network))
      return { ok: false as const, error: 'network must be tron or ethereum' };
    if (typeof amount !== 'string' || !AMOUNT.test(amount))
      return {
        ok: false as const,
        error: 'amount must be a positive integer of USDT minor units, as a string',
      };
    const address = typeof to === 'string' ? checkAddress(network as Network, to) : undefined;
    if (!address?.ok) return { ok: false as const, error: `to is not a ${network} address` };
    return { ok: true as const, network: network as Network, to: address.address, amount };
  };

  app.post('/v1/transfers', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
    if (state.faults[0] === 'error_5xx') {
      state.faults.shift();
      return reply.code(503).send({ error: { code: 'unavailable', message: 'injected outage' } });
    }
    const input = body(request);
    const key = input.idempotencyKey;
    if (typeof key !== 'string' || key.length === 0 || key.length > 200)
      return invalid(reply, 'idempotencyKey is required');
    const transfer = readTransfer(input);
    if (!transfer.ok) return invalid(reply, transfer.error);
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([transfer.network, transfer.to, transfer.amount]))
      .digest('hex');
    const earlier = state.byKey.get(key);
    if (earlier) {
      if (earlier.fingerprint !== fingerprint)
        return reply
          .code(409)
          .send({ error: { code: 'idempotency_conflict', message: 'another transfer used this key' } });
      return reply.code(200).send(view(earlier));
    }
    const intercepted = options.interceptSend?.({ idempotencyKey: key }) ?? 'continue';
    if (intercepted === 'abort_before_record') {
      reply.raw.destroy();
      return reply;
    }
    const created = record({ ...transfer, key, fingerprint });
    logger.info({ txHash: created.txHash, key }, 'sandbox chain: transfer broadcast');
    if (intercepted === 'abort_after_record') {
      reply.raw.destroy();
      return reply;
    }
    return reply.code(201).send(view(created));
  });

  app.get<{ Params: { key: string } }>('/v1/transfers/by-key/:key', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    const transfer = state.byKey.get(request.params.key);
    if (!transfer) return reply.code(404).send({ error: { code: 'not_found', message: 'no such transfer' } });
    return view(transfer);
  });

  app.get<{ Params: { network: string; hash: string } }>(
    '/v1/networks/:network/transactions/:hash',
    async (request, reply) => {
      const transfer = state.byHash.get(request.params.hash);
      if (!transfer || transfer.network !== request.params.network)
        return reply.code(404).send({ error: { code: 'not_found', message: 'no such transaction' } });
      const { id: _id, idempotencyKey: _key, ...explorer } = view(transfer);
      return { hash: transfer.txHash, ...explorer };
    },
  );

  app.get('/v1/rates/TRY-USDT', async () => ({
    rate: state.rate,
    at: (state.rateAt ?? clock.now()).toISOString(),
  }));

  app.post('/_control/mine', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    const blocks = body(request).blocks ?? 1;
    if (typeof blocks !== 'number' || !Number.isInteger(blocks) || blocks < 1 || blocks > 1000)
      return invalid(reply, 'blocks must be an integer from 1 to 1000');
    mine(blocks);
    return { height: state.height };
  });

  app.post('/_control/faults', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    const { fault, times, latencyMs } = body(request);
    if (typeof latencyMs === 'number') state.latencyMs = Math.max(0, Math.min(latencyMs, 60_000));
    if (fault !== undefined) {
      if (
        typeof fault !== 'string' ||
        !['drop', 'fail', 'slow', 'duplicate_hash', 'error_5xx'].includes(fault)
      )
        return invalid(reply, 'fault must be drop, fail, slow, duplicate_hash or error_5xx');
      const count =
        typeof times === 'number' && Number.isInteger(times) && times > 0 ? Math.min(times, 1000) : 1;
      for (let i = 0; i < count; i++) state.faults.push(fault as Fault);
    }
    return { faults: state.faults, latencyMs: state.latencyMs };
  });

  app.post('/_control/external-transfers', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    const transfer = readTransfer(body(request));
    if (!transfer.ok) return invalid(reply, transfer.error);
    return reply.code(201).send(view(record({ ...transfer, key: null, fingerprint: '' })));
  });

  app.post('/_control/rate', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    const { rate, at } = body(request);
    // null: the feed has no rate (it answers `rate: null`), as a market feed that lost its quote.
    if (rate !== null && (typeof rate !== 'string' || !/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/.test(rate)))
      return invalid(reply, 'rate must be a decimal string, or null');
    state.rate = rate;
    state.rateAt = typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? new Date(at) : clock.now();
    return { rate: state.rate, at: state.rateAt.toISOString() };
  });

  app.get('/_control/transfers', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    return { data: state.all.map(view) };
  });

  app.post('/_control/reset', async (request, reply) => {
    if (!authorized(request, reply)) return reply;
    state.faults = [];
    state.latencyMs = 0;
    return { height: state.height };
  });

  const timer =
    (options.blockIntervalMs ?? 0) > 0
      ? setInterval(() => mine(1), options.blockIntervalMs).unref()
      : undefined;
  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  logger.info({ url }, 'sandbox chain listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        if (timer) clearInterval(timer);
        await app.close();
      })()),
  };
}
