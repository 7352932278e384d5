import { stringify } from 'csv-stringify/sync';
import type { Network } from '../../db/schema.js';
import { formatMinor, minor, toMajorString } from '../../shared/money.js';
import type { PayoutRow } from './model.js';

/**
 * The treasury rail of live payouts (docs/payouts.md, "The treasury rail"): the gateway never holds a
 * private key. Operators export the due payouts for a custody or multisig tool, sign and send outside,
 * and record each transaction hash; the confirmation job then completes the payout from what the chain
 * explorer (`CHAIN_EXPLORER_URL`) says of that hash.
 */

/** The USDT token contract a transfer of each network must use (mainnet). */
export const USDT_CONTRACTS: Record<Network, string> = {
  tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  ethereum: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
};

const HASH_FORMS: Record<Network, { pattern: RegExp; form: string }> = {
  // TRON transaction ids are 32 bytes of hex, without a prefix.
  tron: { pattern: /^(?:0x)?([0-9a-fA-F]{64})$/, form: '64 hexadecimal digits' },
  ethereum: { pattern: /^0x([0-9a-fA-F]{64})$/, form: '0x followed by 64 hexadecimal digits' },
};

/**
 * A transaction hash as an operator pasted it, in the one form the gateway stores and the explorer is
 * asked about (lowercase; `0x` on Ethereum, none on TRON), or why it is not one.
 */
export function normalizeTxHash(
  network: Network,
  input: string,
): { ok: true; txHash: string } | { ok: false; expected: string } {
  const match = HASH_FORMS[network].pattern.exec(input.trim());
  if (!match?.[1]) return { ok: false, expected: HASH_FORMS[network].form };
  const hex = match[1].toLowerCase();
  return { ok: true, txHash: network === 'ethereum' ? `0x${hex}` : hex };
}

/** One line of a treasury export: what a custody tool needs to send one payout, and nothing else. */
export interface TreasuryExportLine {
  payoutId: string;
  organizationId: string;
  network: Network;
  token: 'USDT';
  tokenContract: string;
  toAddress: string;
  /** USDT minor units (6 decimals), decimal string. */
  amountMinor: string;
  /** The same amount in USDT, decimal string with 6 decimals (what a custody tool's form takes). */
  amount: string;
  /** TRY minor units debited from the merchant, decimal string. */
  debitedAmount: string;
  debitedCurrency: 'TRY';
  rate: string;
  arrivalDate: string | null;
  createdAt: string;
  /** When the payout was first exported (handed to the treasury). */
  exportedAt: string;
}

export function exportLine(row: PayoutRow): TreasuryExportLine {
  return {
    payoutId: row.id,
    organizationId: row.organization_id,
    network: row.network,
    token: 'USDT',
    tokenContract: USDT_CONTRACTS[row.network],
    toAddress: row.address,
    amountMinor: row.payout_amount,
    amount: toMajorString('USDT', minor('USDT', BigInt(row.payout_amount))),
    debitedAmount: formatMinor(minor('TRY', BigInt(row.amount))),
    debitedCurrency: 'TRY',
    rate: row.rate,
    arrivalDate: row.arrival_date,
    createdAt: row.created_at.toISOString(),
    exportedAt: (row.submitted_at ?? row.updated_at).toISOString(),
  };
}

export const EXPORT_COLUMNS: ReadonlyArray<keyof TreasuryExportLine> = [
  'payoutId',
  'organizationId',
  'network',
  'token',
  'tokenContract',
  'toAddress',
  'amountMinor',
  'amount',
  'debitedAmount',
  'debitedCurrency',
  'rate',
  'arrivalDate',
  'createdAt',
  'exportedAt',
];

/** RFC 4180 CSV with a header line; every value is an id, an address, a number or a time. */
export function exportCsv(lines: readonly TreasuryExportLine[]): string {
  return stringify(
    lines.map((line) => EXPORT_COLUMNS.map((column) => line[column] ?? '')),
    { header: true, columns: [...EXPORT_COLUMNS], record_delimiter: '\r\n' },
  );
}
