import type * as runs from './repository.js';
import type { DifferenceView, RunView } from './types.js';

export function runView(row: runs.RunRow): RunView {
  return {
    id: row.id,
    object: 'reconciliation_run',
    environment: row.environment,
    reportDate: row.report_date,
    origin: row.origin,
    status: row.status,
    acquirer: {
      payments: row.acquirer_payments,
      refunds: row.acquirer_refunds,
      net: String(row.acquirer_net),
    },
    ledger: { payments: row.ledger_payments, refunds: row.ledger_refunds, net: String(row.ledger_net) },
    differenceCount: row.difference_count,
    runBy: row.run_by,
    createdAt: row.created_at.toISOString(),
  };
}

export function differenceView(row: runs.DifferenceRow): DifferenceView {
  return {
    kind: row.kind,
    item: row.item,
    providerId: row.provider_id,
    gatewayId: row.gateway_id,
    organizationId: row.organization_id,
    acquirerAmount: row.acquirer_amount === null ? null : String(row.acquirer_amount),
    ledgerAmount: row.ledger_amount === null ? null : String(row.ledger_amount),
    acquirerAt: row.acquirer_at?.toISOString() ?? null,
    ledgerAt: row.ledger_at?.toISOString() ?? null,
  };
}
