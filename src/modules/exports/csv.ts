import type { Readable } from 'node:stream';
import { csvStream, keysetPages, type CsvColumn } from '../../shared/csv-stream.js';
import { minor, toMajorString, type Currency } from '../../shared/money.js';
import type { CreatedWindow, Cursor } from '../../shared/pagination.js';
import type { ChargeView } from '../charges/schemas.js';
import type { ChargeService } from '../charges/service.js';
import type { ChargeFee, LedgerService } from '../ledger/service.js';
import type { PayoutView } from '../payouts/schemas.js';
import type { PayoutService } from '../payouts/service.js';
import type { RefundView } from '../refunds/schemas.js';
import type { RefundService } from '../refunds/service.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The exports (docs/exports.md): the charges, refunds or payouts one organization
 * made in one environment within a window of creation times, as CSV, oldest first. Each kind is read
 * from its own module's service in keyset pages of `EXPORT_PAGE_SIZE`; the columns are the ones
 * docs/exports.md lists, in that order.
 */

export const EXPORT_KINDS = ['charges', 'refunds', 'payouts'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Rows per query. */
export const EXPORT_PAGE_SIZE = 1000;

export interface ExportSources {
  charges: Pick<ChargeService, 'pageCreatedIn'>;
  refunds: Pick<RefundService, 'pageCreatedIn'>;
  payouts: Pick<PayoutService, 'pageCreatedIn'>;
  /** The fee and net the ledger recorded for each succeeded charge. */
  ledger: Pick<LedgerService, 'chargeFees'>;
}

/** Minor units as an exact decimal of major units ("12345" TRY -> "123.45"), from bigint, never a float. */
export function decimalOf(currency: Currency, minorUnits: string): string {
  return toMajorString(currency, minor(currency, BigInt(minorUnits)));
}

type ChargeLine = ChargeView & { split: ChargeFee | undefined };

/** A money column pair: minor units, and the same as a decimal. */
function money<Item>(
  name: string,
  currency: Currency,
  amount: (item: Item) => string | null | undefined,
): Array<CsvColumn<Item>> {
  return [
    { header: name, cell: (item) => amount(item) ?? null },
    {
      header: `${name}_decimal`,
      cell: (item) => {
        const value = amount(item);
        return value === null || value === undefined ? null : decimalOf(currency, value);
      },
    },
  ];
}

/** The keys of an item's fields that are a cell as they are. */
type CellKey<Item> = { [Key in keyof Item]-?: Item[Key] extends string | null ? Key : never }[keyof Item] &
  string;

/** Columns of fields as they are, each headed by the field's name in snake case (`chargeId`: `charge_id`). */
function fields<Item>(...keys: Array<CellKey<Item>>): Array<CsvColumn<Item>> {
  return keys.map((key) => ({
    header: key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
    cell: (item) => item[key] as string | null,
  }));
}

export const CHARGE_COLUMNS: ReadonlyArray<CsvColumn<ChargeLine>> = [
  ...fields<ChargeLine>('id', 'createdAt', 'status'),
  ...money<ChargeLine>('amount', 'TRY', (c) => c.amount),
  ...money<ChargeLine>('amount_refunded', 'TRY', (c) => c.amountRefunded),
  ...money<ChargeLine>('fee', 'TRY', (c) => c.split?.fee),
  ...money<ChargeLine>('net', 'TRY', (c) => c.split?.net),
  ...fields<ChargeLine>('currency', 'paymentMethod', 'merchantReference'),
  { header: 'customer_email', cell: (c) => c.customer.email },
  { header: 'card_brand', cell: (c) => c.card?.brand ?? null },
  { header: 'card_last4', cell: (c) => c.card?.last4 ?? null },
  { header: 'failure_code', cell: (c) => c.failure?.code ?? null },
  ...fields<ChargeLine>('updatedAt'),
];

export const REFUND_COLUMNS: ReadonlyArray<CsvColumn<RefundView>> = [
  ...fields<RefundView>('id', 'chargeId', 'createdAt', 'status'),
  ...money<RefundView>('amount', 'TRY', (r) => r.amount),
  ...fields<RefundView>('currency', 'reason', 'failureCode', 'updatedAt'),
];

export const PAYOUT_COLUMNS: ReadonlyArray<CsvColumn<PayoutView>> = [
  ...fields<PayoutView>('id', 'createdAt', 'status'),
  ...money<PayoutView>('amount', 'TRY', (p) => p.amount),
  ...fields<PayoutView>('currency'),
  ...money<PayoutView>('payout_amount', 'USDT', (p) => p.payoutAmount),
  ...fields<PayoutView>('payoutCurrency', 'network', 'walletId'),
  { header: 'wallet_address', cell: (p) => p.address },
  { header: 'rate', cell: (p) => p.rate.value },
  { header: 'rate_source', cell: (p) => p.rate.source },
  { header: 'rate_at', cell: (p) => p.rate.at },
  ...money<PayoutView>('spread_amount', 'TRY', (p) => p.spreadAmount),
  { header: 'automatic', cell: (p) => String(p.automatic) },
  ...fields<PayoutView>('txHash', 'arrivalDate', 'completedAt', 'failureCode', 'updatedAt'),
];

const keyOf = (item: { id: string; createdAt: string }): Cursor => ({
  createdAt: new Date(item.createdAt),
  id: item.id,
});

/** The CSV of one kind, streamed: see src/shared/csv-stream.ts. */
export function exportCsv(
  kind: ExportKind,
  sources: ExportSources,
  owner: Owner,
  window: CreatedWindow,
  end: (outcome: 'done' | 'aborted' | Error) => void,
  pageSize: number = EXPORT_PAGE_SIZE,
): Readable {
  switch (kind) {
    case 'charges': {
      const read = async (after: Cursor | undefined, limit: number): Promise<ChargeLine[]> => {
        const charges = await sources.charges.pageCreatedIn(owner, window, after, limit);
        const splits = await sources.ledger.chargeFees(
          owner,
          charges.filter((charge) => charge.status === 'succeeded').map((charge) => charge.id),
        );
        return charges.map((charge) => ({ ...charge, split: splits.get(charge.id) }));
      };
      return csvStream(CHARGE_COLUMNS, keysetPages(read, keyOf, pageSize), end);
    }
    case 'refunds': {
      const read = (after: Cursor | undefined, limit: number) =>
        sources.refunds.pageCreatedIn(owner, window, after, limit);
      return csvStream(REFUND_COLUMNS, keysetPages(read, keyOf, pageSize), end);
    }
    case 'payouts': {
      const read = (after: Cursor | undefined, limit: number) =>
        sources.payouts.pageCreatedIn(owner, window, after, limit);
      return csvStream(PAYOUT_COLUMNS, keysetPages(read, keyOf, pageSize), end);
    }
  }
}

/** How an export's end is logged: a failure as an error, a client that went away as information. */
export function logExportEnd(
  log: { error: (object: object, message: string) => void; info: (object: object, message: string) => void },
  kind: ExportKind,
): (outcome: 'done' | 'aborted' | Error) => void {
  return (outcome) => {
    if (outcome instanceof Error) log.error({ err: outcome, kind }, 'export failed while streaming');
    else if (outcome === 'aborted') log.info({ kind }, 'export stopped: the client went away');
  };
}
