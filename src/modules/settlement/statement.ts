import { createHash } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import { canonicalJson } from '../../shared/canonical-json.js';
import type { ReleasedLine } from '../payouts/ports.js';
import type { BatchRow, ItemRow } from './model.js';
import type { BatchTotals } from './views.js';

/**
 * The statement of a settlement batch (docs/settlement.md "Statements"): every charge
 * and refund it released with its fee, its totals, the rate and the payout it made. Each owner's
 * statements form a hash chain in the order their batches ended: a statement's hash covers its content
 * and the previous statement's hash, so a later change to any past line (or a removed statement) no longer
 * matches what was recorded when the batch ended.
 */

/** The batch's automatic payout: TRY debited, USDT sent (6-decimal minor units). */
export interface StatementPayout {
  id: string;
  amount: string;
  payoutAmount: string;
}

export interface StatementLine extends ReleasedLine {
  occurredAt: string;
}

/** What the hash covers. */
export interface StatementContent {
  batch: BatchTotals & {
    id: string;
    organizationId: string;
    livemode: boolean;
    currency: 'TRY';
    /** The rolling reserve: held back of `net` until `releaseDate`, and earlier reserves released here. */
    reserve: {
      held: string;
      releaseDate: string | null;
      released: string;
      releasedFrom: Array<{ batchId: string; amount: string }>;
    };
    status: 'paid_out' | 'carried';
    carryReason: string | null;
    rate: { value: string; source: string; at: string } | null;
    payout: StatementPayout | null;
  };
  lines: StatementLine[];
  sequence: number;
}

export interface Statement extends StatementContent {
  object: 'settlement_statement';
  previousHash: string | null;
  hash: string;
}

/** sha256 over the previous hash and the canonical JSON of the content, as lowercase hex. */
export function statementHash(previousHash: string | null, content: StatementContent): string {
  return createHash('sha256')
    .update(`${previousHash ?? ''}\n${canonicalJson(content)}`)
    .digest('hex');
}

export function lineOf(item: ItemRow): StatementLine {
  return {
    id: item.id,
    type: item.type,
    sourceId: item.source_id,
    chargeId: item.charge_id,
    merchantReference: item.merchant_reference,
    amount: item.amount,
    fee: item.fee,
    net: item.net,
    occurredAt: item.occurred_at.toISOString(),
  };
}

/**
 * The content of a batch that ends now (`status`, the rate and the payout as it ends), from its stored
 * release and items; the same function recomputes it when the chain is verified.
 */
export function statementContent(
  batch: BatchRow,
  ending: {
    status: 'paid_out' | 'carried';
    carryReason: string | null;
    rate: { value: string; source: string; at: Date } | null;
    payout: StatementPayout | null;
    sequence: number;
  },
  items: readonly ItemRow[],
  releases: ReadonlyArray<{ batch_id: string; amount: string }>,
): StatementContent {
  return {
    batch: {
      id: batch.id,
      organizationId: batch.organization_id,
      livemode: batch.environment === 'live',
      businessDate: batch.business_date,
      cutoff: batch.cutoff.toISOString(),
      gross: batch.gross,
      fees: batch.fees,
      refunds: batch.refunds,
      net: batch.net,
      currency: 'TRY',
      itemCount: batch.item_count,
      reserve: {
        held: batch.reserve_held,
        releaseDate: batch.reserve_release_date,
        released: batch.reserve_released,
        releasedFrom: [...releases]
          .sort((a, b) => (a.batch_id < b.batch_id ? -1 : 1))
          .map((release) => ({ batchId: release.batch_id, amount: release.amount })),
      },
      status: ending.status,
      carryReason: ending.carryReason,
      rate: ending.rate && { ...ending.rate, at: ending.rate.at.toISOString() },
      payout: ending.payout,
    },
    lines: [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(lineOf),
    sequence: ending.sequence,
  };
}

export const STATEMENT_COLUMNS = [
  'record',
  'id',
  'type',
  'source_id',
  'charge_id',
  'merchant_reference',
  'amount',
  'fee',
  'net',
  'currency',
  'occurred_at',
] as const;

/**
 * The statement as CSV: one row per charge and refund, then the batch's totals, the rate, the payout and
 * the chain (`hash`, `previous_hash`), each a row whose `record` column says what it is.
 */
export function statementCsv(statement: Statement): string {
  const { batch } = statement;
  const row = (values: Partial<Record<(typeof STATEMENT_COLUMNS)[number], string | null>>) =>
    STATEMENT_COLUMNS.map((column) => values[column] ?? '');
  const rows = [
    ...statement.lines.map((line) =>
      row({
        record: 'line',
        id: line.id,
        type: line.type,
        source_id: line.sourceId,
        charge_id: line.chargeId,
        merchant_reference: line.merchantReference,
        amount: line.amount,
        fee: line.fee,
        net: line.net,
        currency: 'TRY',
        occurred_at: line.occurredAt,
      }),
    ),
    row({
      record: 'batch',
      id: batch.id,
      type: batch.status,
      source_id: batch.businessDate,
      amount: batch.gross,
      fee: batch.fees,
      net: batch.net,
      currency: 'TRY',
      occurred_at: batch.cutoff,
      merchant_reference: batch.carryReason,
    }),
    ...(batch.reserve.held !== '0'
      ? [
          row({
            record: 'reserve_held',
            id: batch.id,
            amount: batch.reserve.held,
            currency: 'TRY',
            occurred_at: batch.reserve.releaseDate,
          }),
        ]
      : []),
    ...batch.reserve.releasedFrom.map((release) =>
      row({ record: 'reserve_released', id: release.batchId, amount: release.amount, currency: 'TRY' }),
    ),
    ...(batch.rate
      ? [row({ record: 'rate', id: batch.rate.source, amount: batch.rate.value, occurred_at: batch.rate.at })]
      : []),
    ...(batch.payout
      ? [
          row({ record: 'payout', id: batch.payout.id, amount: batch.payout.amount, currency: 'TRY' }),
          row({
            record: 'payout_sent',
            id: batch.payout.id,
            amount: batch.payout.payoutAmount,
            currency: 'USDT',
          }),
        ]
      : []),
    row({ record: 'hash', id: statement.hash, amount: String(statement.sequence) }),
    row({ record: 'previous_hash', id: statement.previousHash }),
  ];
  return stringify(rows, { header: true, columns: [...STATEMENT_COLUMNS], record_delimiter: '\r\n' });
}
