import { Type, type Static } from 'typebox';
import { IdParamsSchema, PageSchema } from '../../http/schemas.js';

const Minor = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description });

export const SettlementBatchSchema = Type.Object(
  {
    id: Type.String({ pattern: '^stl_', description: 'Prefix `stl_`.' }),
    object: Type.Literal('settlement_batch'),
    businessDate: Type.String({ format: 'date', description: 'The business date the batch belongs to.' }),
    cutoff: Type.String({
      format: 'date-time',
      description: 'Everything credited to pending up to this instant, not released before, is in the batch.',
    }),
    gross: Minor('Charges in the batch, TRY minor units.'),
    fees: Minor('Their fees, TRY minor units.'),
    refunds: Minor('Refunds in the batch, TRY minor units (positive).'),
    net: Minor('gross - fees - refunds: what moved from `pending` to `available`.'),
    itemCount: Type.Integer({ description: 'Charges and refunds in the batch.' }),
    reserve: Type.Object(
      {
        held: Minor('Held back of `net` by the rolling reserve, TRY minor units.'),
        releaseDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
          description: 'The first batch on or after this date releases it; null when nothing was held.',
        }),
        released: Minor('Earlier batches’ reserves this batch released to `available`, TRY minor units.'),
      },
      { description: 'The rolling reserve an operator set for the organization (docs/settlement.md).' },
    ),
    status: Type.Enum(['released', 'held', 'paid_out', 'carried'], {
      description:
        '`released`: the funds are available and the payout phase comes next; `paid_out`: the automatic ' +
        'payout `payoutId` was made; `carried`: no payout (`carryReason`), the funds stay available for a ' +
        'later batch or a manual payout; `held`: no usable rate yet (`holdReason`), retried, never paid at ' +
        'a guessed rate.',
    }),
    payoutId: Type.Union([Type.String({ pattern: '^po_' }), Type.Null()], {
      description: 'The automatic payout the batch made.',
    }),
    carryReason: Type.Union(
      [
        Type.Enum(['no_default_wallet', 'below_minimum', 'manual_schedule', 'nothing_available']),
        Type.Null(),
      ],
      {
        description:
          'Why a carried batch made no payout: no active default wallet, the available balance is below ' +
          "the network's minimum, the organization pays out by hand, or nothing was available.",
      },
    ),
    holdReason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why a held batch waits: `rate_unavailable:<reason>` (no usable rate yet) or `organization_frozen` ' +
        '(an operator froze the organization; paid by a run after it is unfrozen).',
    }),
    rate: Type.Union(
      [
        Type.Object({
          value: Type.String({ description: 'USDT per TRY, exact decimal.' }),
          source: Type.String(),
          at: Type.String({ format: 'date-time' }),
        }),
        Type.Null(),
      ],
      { description: 'The rate the automatic payout was converted at; null without one.' },
    ),
    livemode: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    description:
      'A settlement batch: pending funds released to the available balance, then paid out automatically ' +
      '(docs/settlement.md).',
  },
);

export const SettleResultSchema = Type.Object({
  released: Type.Boolean({ description: 'Whether anything moved to `available`.' }),
  reason: Type.Optional(
    Type.Enum(['nothing_to_release', 'net_not_positive'], {
      description:
        'Why nothing moved: no new credits, or refunds exceed the new credits (the debt is repaid by later ' +
        'credits first).',
    }),
  ),
  batch: Type.Union([SettlementBatchSchema, Type.Null()]),
});
export type SettleResult = Static<typeof SettleResultSchema>;

export const SettlementIdParamsSchema = IdParamsSchema('Settlement batch identifier, prefix `stl_`.');

export const SettlementListSchema = PageSchema(SettlementBatchSchema, 'Null on the last page.');

const LineSchema = Type.Object({
  id: Type.String({ description: 'The balance transaction (`txn_`).' }),
  type: Type.Enum(['charge', 'refund', 'dispute', 'recovery']),
  sourceId: Type.String({
    description:
      'The charge (`ch_`) or refund (`re_`); for a dispute, the acquirer movement (funds withdrawn or ' +
      'reinstated) or `<dispute id>:<stage>` (its fee, or the fee returned); for a recovery, the debt ' +
      'taken from the available balance (`rcv_…`).',
  }),
  chargeId: Type.String(),
  merchantReference: Type.Union([Type.String(), Type.Null()]),
  amount: Minor('Gross, TRY minor units (negative for a refund).'),
  fee: Minor('Fee, TRY minor units.'),
  net: Minor('amount - fee, TRY minor units.'),
  occurredAt: Type.String({ format: 'date-time' }),
});

export const StatementSchema = Type.Object(
  {
    object: Type.Literal('settlement_statement'),
    batch: Type.Object({
      id: Type.String(),
      organizationId: Type.String(),
      livemode: Type.Boolean(),
      businessDate: Type.String({ format: 'date' }),
      cutoff: Type.String({ format: 'date-time' }),
      gross: Minor('TRY minor units.'),
      fees: Minor('TRY minor units.'),
      refunds: Minor('TRY minor units.'),
      net: Minor('TRY minor units.'),
      currency: Type.Literal('TRY'),
      itemCount: Type.Integer(),
      reserve: Type.Object({
        held: Minor('TRY minor units held back of `net`.'),
        releaseDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
        released: Minor('TRY minor units of earlier reserves released here.'),
        releasedFrom: Type.Array(Type.Object({ batchId: Type.String(), amount: Minor('TRY minor units.') }), {
          description: 'The batches whose reserve this batch released.',
        }),
      }),
      status: Type.Enum(['paid_out', 'carried']),
      carryReason: Type.Union([Type.String(), Type.Null()]),
      rate: Type.Union([
        Type.Object({
          value: Type.String(),
          source: Type.String(),
          at: Type.String({ format: 'date-time' }),
        }),
        Type.Null(),
      ]),
      payout: Type.Union([
        Type.Object({
          id: Type.String(),
          amount: Minor('TRY minor units debited.'),
          payoutAmount: Type.String({ description: 'USDT sent, 6-decimal minor units.' }),
        }),
        Type.Null(),
      ]),
    }),
    lines: Type.Array(LineSchema),
    sequence: Type.Integer({ description: "The statement's place in the organization's chain, from 1." }),
    previousHash: Type.Union([Type.String(), Type.Null()], {
      description: 'The previous statement’s `hash`; null for the first.',
    }),
    hash: Type.String({
      description:
        'sha256 (hex) of `previousHash` (empty for the first), a newline, and the canonical JSON (members ' +
        'sorted, no whitespace) of `{batch, lines, sequence}`: recorded when the batch ended.',
    }),
  },
  {
    description:
      'A settlement batch’s statement: every charge and refund it released with its fee, its totals, the ' +
      'rate and the payout; chained by hash (docs/settlement.md "Statements").',
  },
);
