/**
 * The payout engine's confirmation against an explorer that spells addresses its own way (ADR 0055): the
 * sandbox chain behind a proxy that rewrites the `to` of its explorer answers. An Ethereum address is hex,
 * its case only the EIP-55 checksum: an explorer answering in lower case confirms the payout to the
 * checksummed wallet. A TRON address is base58, where case is the value: one letter in another case is
 * another account, and the payout is not completed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxChain, type SandboxChain } from '../sandbox-chain/server.js';
import { createManualClock, MINUTE } from '../src/shared/clock.js';
import { chainControl } from './helpers/chain.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { ETH_ADDRESS, merchantApi, paidCharge, TRON_ADDRESS } from './helpers/payouts.js';

interface PayoutBody {
  id: string;
  status: string;
  address: string;
  txHash: string | null;
}

const chainKey = `sc_test_${randomBytes(12).toString('hex')}`;
let chain: SandboxChain;
let proxy: http.Server;
/** How the explorer spells a transaction's `to`; unset: as the sandbox chain does (checksummed). */
let spell: ((network: string, to: string) => string) | undefined;
let t: TestGateway;

beforeAll(async () => {
  const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
  chain = await startSandboxChain({ port: 0, apiKey: chainKey, clock, rateFollowsClock: true });
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'accept', 'idempotency-key']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const upstream = await fetch(`${chain.url}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body } : {}),
        });
        let text = await upstream.text();
        const explorer = /^\/v1\/networks\/([a-z]+)\/transactions\//.exec(req.url ?? '');
        if (explorer && upstream.status === 200 && spell) {
          const answer = JSON.parse(text) as { to: string };
          answer.to = spell(explorer[1] ?? '', answer.to);
          text = JSON.stringify(answer);
        }
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'application/json',
        });
        res.end(text);
      })().catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  t = await startTestGateway({
    clock,
    env: {
      // No worker: the test runs the engine's batches itself.
      ROLES: 'api,sandbox-acquirer',
      SANDBOX_CHAIN_URL: `http://127.0.0.1:${port}`,
      SANDBOX_CHAIN_API_KEY: chainKey,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await chain?.close();
});

const engine = () => t.gateway.services.payoutEngine;

/** A sandbox merchant whose default wallet is `address`, with a paid charge released to available. */
async function fundedMerchant(network: 'tron' | 'ethereum', address: string): Promise<Merchant> {
  const merchant = await createMerchant(t, {
    featureFlags: ['payouts', 'wallets'],
    payoutSchedule: 'manual',
  });
  const wallet = await merchantApi<{ address: string }>(t, merchant, 'sandbox', '/v1/wallets', {
    network,
    address,
  });
  expect(wallet.status, wallet.text).toBe(201);
  await paidCharge(t, merchant, 'sandbox', 1_000_000);
  const settled = await merchantApi<{ released: boolean }>(
    t,
    merchant,
    'sandbox',
    '/v1/test-helpers/settle',
    {},
  );
  expect(settled.body.released).toBe(true);
  return merchant;
}

/** A payout sent, mined past its confirmations, and looked at by the confirmation job. */
async function sentAndConfirmed(merchant: Merchant): Promise<PayoutBody> {
  const created = await merchantApi<PayoutBody>(t, merchant, 'sandbox', '/v1/payouts', { amount: 100_000 });
  expect(created.status, created.text).toBe(201);
  await engine().submitBatch();
  await chainControl({ url: chain.url, apiKey: chainKey }).mine(5);
  t.clock.advance(MINUTE);
  await engine().confirmBatch();
  const payout = await merchantApi<PayoutBody>(t, merchant, 'sandbox', `/v1/payouts/${created.body.id}`);
  return payout.body;
}

async function lastErrorOf(payoutId: string): Promise<string | null> {
  const row = await t.gateway.database.db
    .selectFrom('payouts')
    .select('last_error')
    .where('id', '=', payoutId)
    .executeTakeFirstOrThrow();
  return row.last_error;
}

const swapCase = (text: string) =>
  [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

describe('confirming a payout against the explorer’s spelling of its address', () => {
  it('completes an Ethereum payout the explorer answers in lower case (the wallet keeps EIP-55)', async () => {
    const merchant = await fundedMerchant('ethereum', ETH_ADDRESS.toLowerCase());
    spell = (network, to) => (network === 'ethereum' ? to.toLowerCase() : to);
    try {
      const payout = await sentAndConfirmed(merchant);
      expect(payout.address).toBe(ETH_ADDRESS);
      expect(payout.address).not.toBe(ETH_ADDRESS.toLowerCase());
      expect(payout.status, (await lastErrorOf(payout.id)) ?? '').toBe('completed');
    } finally {
      spell = undefined;
    }
  });

  it('keeps a TRON payout in transit when the explorer names an address of other letter case', async () => {
    const merchant = await fundedMerchant('tron', TRON_ADDRESS);
    spell = (network, to) => (network === 'tron' ? `T${swapCase(to.slice(1))}` : to);
    let payoutId = '';
    try {
      const payout = await sentAndConfirmed(merchant);
      payoutId = payout.id;
      expect(payout.status).toBe('in_transit');
      expect(await lastErrorOf(payout.id)).toContain(`to T${swapCase(TRON_ADDRESS.slice(1))}, not`);
    } finally {
      spell = undefined;
    }
    // Spelled as the wallet is, the same transaction completes it.
    t.clock.advance(10 * MINUTE);
    await engine().confirmBatch();
    const payout = await merchantApi<PayoutBody>(t, merchant, 'sandbox', `/v1/payouts/${payoutId}`);
    expect(payout.body.status).toBe('completed');
  });
});
