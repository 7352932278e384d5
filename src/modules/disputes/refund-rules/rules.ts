import type { Owner } from '../../../shared/owner.js';
import type { RefundRuleDeps, RuleActor } from './deps.js';
import * as rules from './repository.js';
import {
  RULE_KINDS,
  ruleView,
  type DisputeRefundRuleKind,
  type RuleList,
  type RuleUpdate,
  type RuleView,
} from './schemas.js';

/** The owner's two rules, `dispute_alert` first; a rule never set is off. */
export async function listRules(deps: Pick<RefundRuleDeps, 'db'>, owner: Owner): Promise<RuleList> {
  const rows = await rules.rulesOf(deps.db, owner);
  return {
    data: RULE_KINDS.map((kind) =>
      ruleView(
        kind,
        owner.environment,
        rows.find((row) => row.kind === kind),
      ),
    ),
  };
}

/**
 * Sets the owner's rule of `kind`, audited in its transaction (`dispute_refund_rule.updated`). Switching
 * it on starts its coverage now: the alerts and warnings that arrived before are left to the merchant.
 */
export async function setRule(
  deps: Pick<RefundRuleDeps, 'db' | 'clock' | 'audit'>,
  owner: Owner,
  kind: DisputeRefundRuleKind,
  input: RuleUpdate,
  by: RuleActor,
): Promise<RuleView> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await rules.findRule(trx, owner, kind, { lock: true });
    const now = deps.clock.now();
    const row = await rules.upsertRule(trx, {
      organization_id: owner.organizationId,
      environment: owner.environment,
      kind,
      enabled: input.enabled,
      max_amount: input.maxAmount === null ? null : String(input.maxAmount),
      enabled_at: input.enabled ? (before?.enabled ? before.enabled_at : now) : null,
      updated_by: by.actor,
      now,
    });
    const view = ruleView(kind, owner.environment, row);
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'dispute_refund_rule.updated',
      targetType: 'dispute_refund_rule',
      targetId: `${owner.environment}:${kind}`,
      organizationId: owner.organizationId,
      before: { enabled: before?.enabled ?? false, maxAmount: before?.max_amount ?? null },
      after: { enabled: view.enabled, maxAmount: view.maxAmount },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return view;
  });
}
