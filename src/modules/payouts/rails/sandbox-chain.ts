import type { PayoutRailName } from '../../../db/schema.js';
import { callJson, rejection } from './http.js';
import {
  RailUnavailableError,
  type ChainTransaction,
  type ChainWatcher,
  type SendingRail,
  type TransferState,
} from './types.js';

/** The sandbox chain's sender API (docs/sandbox-chain.md) as a `SendingRail`, idempotent on the payout id. */
export function createSandboxChainRail(options: {
  url: () => string;
  apiKey: string;
  timeoutMs: number;
}): SendingRail {
  const name: PayoutRailName = 'sandbox_chain';
  return {
    name,
    async submit(request) {
      const { status, body } = await callJson(`${options.url()}/v1/transfers`, {
        method: 'POST',
        apiKey: options.apiKey,
        timeoutMs: options.timeoutMs,
        body: {
          idempotencyKey: request.payoutId,
          network: request.network,
          to: request.address,
          amount: request.amount,
        },
      });
      if (status >= 400) throw rejection(status, body);
      if (typeof body.txHash !== 'string')
        throw new RailUnavailableError('the sandbox chain answered no txHash');
      return { txHash: body.txHash };
    },
    async lookup(payoutId) {
      const { status, body } = await callJson(
        `${options.url()}/v1/transfers/by-key/${encodeURIComponent(payoutId)}`,
        { apiKey: options.apiKey, timeoutMs: options.timeoutMs },
      );
      if (status === 404) return { state: 'unknown' };
      if (status >= 400) throw rejection(status, body);
      return transferState(body);
    },
  };
}

function transferState(body: Record<string, unknown>): TransferState {
  const txHash = typeof body.txHash === 'string' ? body.txHash : '';
  const confirmations = typeof body.confirmations === 'number' ? body.confirmations : 0;
  switch (body.status) {
    case 'confirmed':
      return { state: 'confirmed', txHash, confirmations, confirmedAt: String(body.confirmedAt ?? '') };
    case 'failed':
      return { state: 'failed', txHash, code: 'transfer_failed', message: 'the transfer failed on chain' };
    case 'dropped':
      return { state: 'dropped', txHash };
    default:
      return { state: 'pending', txHash, confirmations };
  }
}

/**
 * A block explorer speaking the explorer contract of docs/sandbox-chain.md
 * (`GET {url}/v1/networks/{network}/transactions/{hash}`): the sandbox chain itself, or a proxy in front of
 * a real explorer for the treasury rail.
 */
export function createExplorerWatcher(options: {
  url: () => string | undefined;
  timeoutMs: number;
}): ChainWatcher {
  return {
    async transaction(network, txHash) {
      const base = options.url();
      if (base === undefined) throw new RailUnavailableError('no block explorer is configured');
      const { status, body } = await callJson(
        `${base}/v1/networks/${network}/transactions/${encodeURIComponent(txHash)}`,
        { timeoutMs: options.timeoutMs },
      );
      if (status === 404) return { state: 'not_found' };
      if (status >= 400) throw rejection(status, body);
      const state = body.status === 'dropped' ? 'failed' : body.status;
      if (state !== 'pending' && state !== 'confirmed' && state !== 'failed')
        throw new RailUnavailableError('the explorer answered an unknown status');
      const transaction: ChainTransaction = {
        state,
        txHash,
        confirmations: typeof body.confirmations === 'number' ? body.confirmations : 0,
        to: String(body.to ?? ''),
        amount: String(body.amount ?? ''),
        ...(typeof body.confirmedAt === 'string' ? { confirmedAt: body.confirmedAt } : {}),
      };
      return transaction;
    },
  };
}
