import { Type, type Static } from 'typebox';
import { ListQuerySchema } from '../../http/list-query.js';
import { NEXT_CURSOR, PageSchema } from '../../http/schemas.js';
import type { RefundRow } from './model.js';

export const RefundCreateSchema = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Minor units to refund; absent means everything that remains refundable.',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Why, for your records; shown back as given.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RefundCreate = Static<typeof RefundCreateSchema>;

export const RefundViewSchema = Type.Object(
  {
    id: Type.String({ pattern: '^re_', description: 'Prefix `re_`.' }),
    chargeId: Type.String({ pattern: '^ch_' }),
    amount: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Decimal string of minor units.' }),
    currency: Type.Enum(['TRY']),
    status: Type.Enum(['pending', 'succeeded', 'failed'], {
      description:
        '`pending` while the acquirer is asked (it is retried in the background), `succeeded`, or `failed` ' +
        'when the acquirer refused it.',
    }),
    reason: Type.Union([Type.String(), Type.Null()]),
    failureCode: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A refund of all or part of a succeeded charge.' },
);
export type RefundView = Static<typeof RefundViewSchema>;

/** `GET /v1/charges/{id}/refunds`: the list query of every list (spec section 4). */
export const RefundListQuerySchema = ListQuerySchema;
export type RefundListQuery = Static<typeof RefundListQuerySchema>;

export const RefundListSchema = PageSchema(RefundViewSchema, NEXT_CURSOR, { additionalProperties: false });
export type RefundList = Static<typeof RefundListSchema>;

export function refundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    chargeId: row.charge_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    failureCode: row.failure_code,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
