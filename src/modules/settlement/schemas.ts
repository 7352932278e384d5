import { Type, type Static } from 'typebox';

const Minor = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description });

export const SettlementBatchSchema = Type.Object(
  {
    id: Type.String({ pattern: '^stl_', description: 'Prefix `stl_`.' }),
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
    livemode: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A settlement batch: pending funds released to the available balance.' },
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
