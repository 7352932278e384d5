import { Type, type Static } from 'typebox';
import { ListQuerySchema } from '../../http/list-query.js';
import { IdParamsSchema, NEXT_CURSOR, PageSchema } from '../../http/schemas.js';
import type { PayoutRow } from './model.js';
import type { PayoutTransaction } from './ports.js';

const MinorTry = (description: string) =>
  Type.String({
    pattern: '^-?[0-9]+$',
    description: `${description} TRY minor units (kuruş), decimal string.`,
  });
const Time = (description: string) => Type.String({ format: 'date-time', description });
const NullableTime = (description: string) => Type.Union([Time(description), Type.Null()]);

export const PayoutCreateSchema = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'TRY minor units to pay out of the available balance.',
    }),
    walletId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An active wallet (`wal_`) of this environment; absent: the default wallet.',
      }),
    ),
    description: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'For your records.' }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
        // A key's length, stated as JSON Schema does: a Record's key schema is not validated.
        propertyNames: { maxLength: 40 },
        maxProperties: 20,
        description: 'Up to 20 string pairs, echoed in the payout and its events.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PayoutCreate = Static<typeof PayoutCreateSchema>;

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'completed', 'failed', 'canceled'] as const;

export const PayoutViewSchema = Type.Object(
  {
    id: Type.String({ pattern: '^po_', description: 'Prefix `po_`.' }),
    object: Type.Literal('payout'),
    amount: MinorTry('Debited from the available balance:'),
    currency: Type.Literal('TRY'),
    payoutAmount: Type.String({
      pattern: '^[0-9]+$',
      description:
        'USDT sent, in minor units of 6 decimals (1000000 = 1 USDT), decimal string; rounded down.',
    }),
    payoutCurrency: Type.Literal('USDT'),
    spreadAmount: MinorTry('The part of `amount` kept as the FX spread:'),
    rate: Type.Object(
      {
        value: Type.String({
          description:
            'USDT per TRY the payout was converted at, exact decimal, locked at creation: `market` less the spread.',
        }),
        source: Type.String({ description: 'Where the rate came from (`sandbox`, `ticker:<host>`).' }),
        at: Time('When the source fixed the rate.'),
        market: Type.String({ description: 'The market rate the source quoted, USDT per TRY.' }),
        spreadBps: Type.Integer({ description: 'The FX spread off the market rate, basis points.' }),
      },
      { description: 'The locked conversion rate.' },
    ),
    network: Type.Enum(['tron', 'ethereum'], { description: 'USDT on TRON (TRC-20) or Ethereum (ERC-20).' }),
    walletId: Type.String({ pattern: '^wal_' }),
    address: Type.String({ description: 'The destination address, as it was when the payout was created.' }),
    rail: Type.Enum(['sandbox_chain', 'treasury'], {
      description:
        '`sandbox_chain` (test keys: never real money) or `treasury` (live: signed and sent by the treasury ' +
        'outside the gateway, confirmed on chain).',
    }),
    status: Type.Enum([...PAYOUT_STATUSES], {
      description:
        '`pending` (awaiting its transaction) -> `in_transit` (`txHash` known) -> `completed` (confirmed on ' +
        'chain) or `failed` (the funds return to `available`); a pending payout can be `canceled` (funds ' +
        'return too). Never moves backwards.',
    }),
    txHash: Type.Union([Type.String(), Type.Null()], {
      description: 'The transaction hash once sent; one payout per hash and one hash per payout.',
    }),
    arrivalDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'The business day the USDT is expected to arrive.',
    }),
    automatic: Type.Boolean({
      description: 'True for the daily batch payout, false when made through the API.',
    }),
    failureCode: Type.Union([Type.String(), Type.Null()]),
    failureMessage: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean(),
    createdAt: Time('When the payout was created.'),
    updatedAt: Time('The last change.'),
    inTransitAt: NullableTime('When its transaction hash was recorded.'),
    completedAt: NullableTime('When the chain confirmed it.'),
    failedAt: NullableTime('When it failed.'),
    canceledAt: NullableTime('When it was canceled.'),
  },
  { description: 'A payout of TRY from the available balance as USDT to a wallet.' },
);
export type PayoutView = Static<typeof PayoutViewSchema>;

export const PayoutListQuerySchema = Type.Object(
  {
    ...ListQuerySchema.properties,
    status: Type.Optional(Type.Enum([...PAYOUT_STATUSES], { description: 'Only payouts in this status.' })),
    createdFrom: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only payouts created at or after this time.' }),
    ),
    createdTo: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only payouts created before this time.' }),
    ),
  },
  { additionalProperties: false },
);
export type PayoutListQuery = Static<typeof PayoutListQuerySchema>;

export const PayoutListSchema = PageSchema(PayoutViewSchema, NEXT_CURSOR);

export const PayoutTransactionSchema = Type.Object(
  {
    id: Type.String({ pattern: '^txn_', description: 'The balance transaction (prefix `txn_`).' }),
    type: Type.Enum(['charge', 'refund', 'dispute', 'recovery']),
    sourceId: Type.String({ description: 'The charge (`ch_`) or refund (`re_`).' }),
    chargeId: Type.String({ pattern: '^ch_' }),
    merchantReference: Type.Union([Type.String(), Type.Null()]),
    amount: MinorTry('Gross (negative for a refund):'),
    fee: MinorTry('The fee of a charge (0 for a refund):'),
    net: MinorTry('amount - fee:'),
    currency: Type.Literal('TRY'),
    createdAt: Time('When the charge succeeded or the refund was made.'),
    availableAt: Time('When settlement released it to the available balance.'),
  },
  { description: 'A charge (with its fee) or a refund that a payout carries.' },
);

export const PayoutTransactionListSchema = PageSchema(PayoutTransactionSchema, NEXT_CURSOR);
export type PayoutTransactionList = { data: PayoutTransaction[]; nextCursor: string | null };

export const PayoutIdParamsSchema = IdParamsSchema('Payout identifier, prefix `po_`.');

export function payoutView(row: PayoutRow): PayoutView {
  const time = (value: Date | null) => (value === null ? null : value.toISOString());
  return {
    id: row.id,
    object: 'payout',
    amount: row.amount,
    currency: 'TRY',
    payoutAmount: row.payout_amount,
    payoutCurrency: 'USDT',
    spreadAmount: row.spread_amount,
    rate: {
      value: row.rate,
      source: row.rate_source,
      at: row.rate_at.toISOString(),
      market: row.market_rate,
      spreadBps: row.spread_bps,
    },
    network: row.network,
    walletId: row.wallet_id,
    address: row.address,
    rail: row.rail,
    status: row.status,
    txHash: row.tx_hash,
    arrivalDate: row.arrival_date,
    automatic: row.automatic,
    failureCode: row.failure_code,
    failureMessage: row.failure_message,
    description: row.description,
    metadata: row.metadata as Record<string, string>,
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    inTransitAt: time(row.in_transit_at),
    completedAt: time(row.completed_at),
    failedAt: time(row.failed_at),
    canceledAt: time(row.canceled_at),
  };
}
