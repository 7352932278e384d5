import { Type, type Static } from 'typebox';
import { NullableTimestamp, StrictObject } from '../../../http/schemas.js';
import type { DisputeRefundRuleKind, DisputeRefundRuleRow } from '../../../db/schema.js';

export type { DisputeRefundRuleKind };
export const RULE_KINDS: readonly DisputeRefundRuleKind[] = ['dispute_alert', 'fraud_warning'];

const KIND_DESCRIPTION =
  '`dispute_alert`: pre-dispute alerts, each refunded by its amount (all that remains when less does) ' +
  'before its `refundBy`; `fraud_warning`: early fraud warnings, each refunded by what remains ' +
  'refundable of its charge.';

export const RuleKindParamsSchema = StrictObject({
  kind: Type.Enum([...RULE_KINDS], { description: KIND_DESCRIPTION }),
});

export const RuleUpdateSchema = StrictObject({
  enabled: Type.Boolean({ description: 'Whether the rule refunds what arrives from now on.' }),
  maxAmount: Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
    description:
      'The largest amount refunded automatically, in TRY minor units (an alert’s amount, a fraud ' +
      'warning’s charge amount); `null` for any amount.',
  }),
});
export type RuleUpdate = Static<typeof RuleUpdateSchema>;

export const RuleViewSchema = Type.Object({
  object: Type.Literal('dispute_refund_rule'),
  kind: Type.Enum([...RULE_KINDS], { description: KIND_DESCRIPTION }),
  enabled: Type.Boolean(),
  maxAmount: Type.Union([Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Null()], {
    description: 'Decimal string of TRY minor units; null for any amount.',
  }),
  enabledAt: NullableTimestamp(
    'Since when the rule is on: it covers the alerts and warnings that arrive from then on.',
  ),
  updatedAt: NullableTimestamp('The last change; null for a rule never set.'),
  livemode: Type.Boolean(),
});
export type RuleView = Static<typeof RuleViewSchema>;

export const RuleListSchema = Type.Object({
  data: Type.Array(RuleViewSchema, {
    description: 'Both rules, `dispute_alert` first; a rule never set is off.',
  }),
});
export type RuleList = Static<typeof RuleListSchema>;

/** A rule as the API and the dashboard show it; no row is a rule that is off. */
export function ruleView(
  kind: DisputeRefundRuleKind,
  environment: 'sandbox' | 'live',
  row: DisputeRefundRuleRow | undefined,
): RuleView {
  return {
    object: 'dispute_refund_rule',
    kind,
    enabled: row?.enabled ?? false,
    maxAmount: row?.max_amount ?? null,
    enabledAt: row?.enabled_at?.toISOString() ?? null,
    updatedAt: row?.updated_at.toISOString() ?? null,
    livemode: environment === 'live',
  };
}
