import type pg from 'pg';
import type { InvariantReport } from '../test/helpers/invariants.js';
import type { Receiver } from './receiver.js';
import type { Acknowledged, SoakMerchant, Traffic } from './traffic.js';

/**
 * What must hold after the soak, read from three places that must agree: what the gateway acknowledged to
 * the merchants, its tables (charges, refunds, payouts, batches, events, deliveries, the ledger) and what
 * the other parties saw (the receivers' verified deliveries, the sandbox chain's transfers, the balance
 * API). Each check is a name and the offending rows (none when it holds).
 */
export interface Check {
  name: string;
  ok: boolean;
  /** Up to 10 offending rows or a figure pair; empty when ok. */
  problems: unknown[];
}

export interface ChainTransfer {
  idempotencyKey: string;
  /** USDT minor units (6 decimals), as the payouts table's `payout_amount`. */
  amount: string;
  txHash: string;
}

export interface InvariantInput {
  client: pg.Client;
  /** The whole-database report of test/helpers/invariants.ts. */
  database: InvariantReport;
  merchants: Array<SoakMerchant & { receiver: Receiver }>;
  acknowledged: Acknowledged;
  traffic: Traffic;
  transfers: ChainTransfer[];
}

export async function checkInvariants(input: InvariantInput): Promise<Check[]> {
  const { client, merchants, acknowledged } = input;
  const orgs = merchants.map((m) => m.organizationId);
  const checks: Check[] = [];
  const check = (name: string, problems: unknown[]) =>
    checks.push({ name, ok: problems.length === 0, problems: problems.slice(0, 10) });
  const rows = async <T>(text: string, values: unknown[] = [orgs]): Promise<T[]> =>
    (await client.query(text, values)).rows as T[];

  // Each acknowledged charge exists once: as many charges as distinct acknowledged ids, every id found.
  const charges = await rows<{ id: string; status: string; amount: string; creation_state: string }>(
    `SELECT id, status, amount::text, creation_state FROM charges
      WHERE organization_id = ANY($1) AND environment = 'sandbox'`,
  );
  const chargeById = new Map(charges.map((c) => [c.id, c]));
  const ackedCharges = new Set(acknowledged.charges.values());
  check(
    'every acknowledged charge exists',
    [...ackedCharges].filter((id) => !chargeById.has(id)),
  );
  // A creation left by a killed process, which the recovery job found unknown to the acquirer and
  // abandoned (ADR 0007), is no charge: never answered, never listed, never paid. Its key was free again,
  // so the merchant's retry made the charge that was acknowledged.
  check(
    'no charge beyond the acknowledged ones (none twice, none orphaned)',
    charges
      .filter((c) => !ackedCharges.has(c.id) && c.creation_state !== 'abandoned')
      .map((c) => ({ id: c.id, creationState: c.creation_state })),
  );
  check(
    'no abandoned creation was acknowledged or paid',
    charges
      .filter((c) => c.creation_state === 'abandoned' && (ackedCharges.has(c.id) || c.status === 'succeeded'))
      .map((c) => ({ id: c.id, status: c.status })),
  );
  check(
    'every charge seen paid is succeeded',
    [...acknowledged.paid.keys()].filter((id) => chargeById.get(id)?.status !== 'succeeded'),
  );

  // Each acknowledged refund exists once, for its amount; none refunds more than its charge.
  const refunds = await rows<{ id: string; charge_id: string; amount: string; status: string }>(
    `SELECT id, charge_id, amount::text, status FROM refunds WHERE organization_id = ANY($1)`,
  );
  const refundById = new Map(refunds.map((r) => [r.id, r]));
  const ackedRefunds = [...acknowledged.refunds.values()];
  check(
    'every acknowledged refund exists with its amount',
    ackedRefunds.filter((r) => refundById.get(r.id)?.amount !== r.amount.toString()).map((r) => r.id),
  );
  const ackedRefundIds = new Set(ackedRefunds.map((r) => r.id));
  check(
    'no refund beyond the acknowledged ones',
    refunds.filter((r) => !ackedRefundIds.has(r.id)).map((r) => r.id),
  );
  check(
    'every refund has ended (succeeded or failed)',
    refunds.filter((r) => r.status === 'pending').map((r) => r.id),
  );
  const refundedByCharge = new Map<string, bigint>();
  for (const r of refunds) {
    if (r.status === 'failed') continue;
    refundedByCharge.set(r.charge_id, (refundedByCharge.get(r.charge_id) ?? 0n) + BigInt(r.amount));
  }
  check(
    'no charge refunded beyond its amount',
    [...refundedByCharge].filter(([id, sum]) => sum > BigInt(chargeById.get(id)?.amount ?? '0')),
  );

  // The ledger and the records it must agree with (test/helpers/invariants.ts, as a restored backup is
  // checked): every entry balances, each succeeded charge, refund and payout has exactly its entries and
  // events, and every balance read equals the plain sum of the postings.
  check('the money invariants of the whole database', input.database.violations);

  // Settlement: one scheduled batch per organization, environment and business date (settle-now makes one
  // per call, ADR 0067); one payout per batch.
  check(
    'one scheduled batch per organization and business date',
    await rows(
      `SELECT organization_id, environment, business_date, count(*)::int AS batches FROM settlement_batches
        WHERE organization_id = ANY($1) AND origin = 'schedule' GROUP BY 1, 2, 3 HAVING count(*) > 1`,
    ),
  );
  const batchIds = new Set(
    (await rows<{ id: string }>(`SELECT id FROM settlement_batches WHERE organization_id = ANY($1)`)).map(
      (b) => b.id,
    ),
  );
  check(
    'every acknowledged batch exists',
    acknowledged.settlements.filter((s) => s.batchId !== null && !batchIds.has(s.batchId)),
  );
  check(
    'no payout made by two batches',
    await rows(
      `SELECT payout_id, count(*)::int AS batches FROM settlement_batches
        WHERE organization_id = ANY($1) AND payout_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1`,
    ),
  );

  // The chain: each payout sent at most once, for its amount; every transfer is a payout of ours.
  const payouts = await rows<{
    id: string;
    status: string;
    amount: string;
    payout_amount: string;
    tx_hash: string | null;
  }>(
    `SELECT id, status, amount::text, payout_amount::text, tx_hash FROM payouts WHERE organization_id = ANY($1)`,
  );
  const transfersByKey = new Map<string, ChainTransfer[]>();
  for (const t of input.transfers)
    transfersByKey.set(t.idempotencyKey, [...(transfersByKey.get(t.idempotencyKey) ?? []), t]);
  const payoutIds = new Set(payouts.map((p) => p.id));
  check(
    'every chain transfer is one payout of ours',
    input.transfers.filter((t) => !payoutIds.has(t.idempotencyKey)).map((t) => t.txHash),
  );
  check(
    'every payout sent is on the chain once, for its USDT amount and hash',
    payouts
      .filter((p) => p.status === 'in_transit' || p.status === 'completed')
      .filter((p) => {
        const sent = transfersByKey.get(p.id) ?? [];
        return (
          sent.length !== 1 ||
          BigInt(sent[0]?.amount ?? '-1') !== BigInt(p.payout_amount) ||
          sent[0]?.txHash !== p.tx_hash
        );
      })
      .map((p) => p.id),
  );
  check(
    'every payout has ended or is on its way',
    payouts.filter((p) => p.status === 'pending').map((p) => p.id),
  );

  // Webhooks: every event reached its endpoint with a valid signature at least once.
  const events = await rows<{ id: string; organization_id: string }>(
    `SELECT id, organization_id FROM events WHERE organization_id = ANY($1) AND environment = 'sandbox'`,
  );
  const receiverOf = new Map(merchants.map((m) => [m.organizationId, m.receiver]));
  check(
    'every event delivered at least once with a valid signature',
    events.filter((e) => !receiverOf.get(e.organization_id)?.delivered.has(e.id)).map((e) => e.id),
  );
  check(
    'no delivery failed a signature check',
    merchants
      .filter((m) => m.receiver.badSignatures > 0)
      .map((m) => [m.organizationId, m.receiver.badSignatures]),
  );
  check(
    'every delivery row succeeded',
    await rows(
      `SELECT id, status, attempts FROM webhook_deliveries WHERE organization_id = ANY($1) AND status <> 'succeeded'`,
    ),
  );

  // Money in equals money out, per merchant, from the tables, the ledger and the balance API.
  for (const merchant of merchants) {
    const [figures] = await rows<{ charged: string; refunded: string; fees: string; paid_out: string }>(
      `SELECT
         (SELECT coalesce(sum(amount), 0) FROM charges
           WHERE organization_id = $1 AND environment = 'sandbox' AND status = 'succeeded')::text AS charged,
         (SELECT coalesce(sum(amount), 0) FROM refunds
           WHERE organization_id = $1 AND environment = 'sandbox' AND status = 'succeeded')::text AS refunded,
         (SELECT coalesce(-sum(amount), 0) FROM ledger_postings
           WHERE organization_id = $1 AND environment = 'sandbox' AND account = 'fee_revenue')::text AS fees,
         (SELECT coalesce(sum(amount), 0) FROM payouts
           WHERE organization_id = $1 AND environment = 'sandbox'
             AND status IN ('pending', 'in_transit', 'completed'))::text AS paid_out`,
      [merchant.organizationId],
    );
    const balance = await input.traffic.api(merchant, 'GET', '/v1/balance');
    // The balance is one entry per currency (`balances`, TRY only here). A refund debt is `debt`, and
    // `pending` is then 0 (ADR 0069): never both above zero, never negative, and the debt is subtracted.
    const entries = (balance.body.balances ?? []) as Array<Record<string, string>>;
    check(
      `the balance answers with its TRY entry (${merchant.organizationId})`,
      balance.status === 200 && entries.length === 1 && entries[0]?.currency === 'TRY' ? [] : [balance],
    );
    let held = 0n;
    for (const entry of entries) {
      const pending = BigInt(entry.pending ?? '0');
      const debt = BigInt(entry.debt ?? '0');
      held += pending + BigInt(entry.available ?? '0') + BigInt(entry.reserve ?? '0') - debt;
      check(
        `the balance's debt and pending are never both owed, never negative (${merchant.organizationId})`,
        pending >= 0n && debt >= 0n && (pending === 0n || debt === 0n) ? [] : [entry],
      );
    }
    const moneyIn = BigInt(figures?.charged ?? '0');
    const moneyOut =
      BigInt(figures?.refunded ?? '0') +
      BigInt(figures?.fees ?? '0') +
      BigInt(figures?.paid_out ?? '0') +
      held;
    check(
      `money in equals money out (${merchant.organizationId})`,
      moneyIn === moneyOut
        ? []
        : [
            {
              charged: figures?.charged,
              refunded: figures?.refunded,
              fees: figures?.fees,
              paidOut: figures?.paid_out,
              balance: balance.body,
            },
          ],
    );
  }
  return checks;
}
