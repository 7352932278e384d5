import type { Environment } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import { err, ok } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type AcquirerSettlementReport,
} from '../acquirer/index.js';
import type { ClearingMovement } from '../ledger/service.js';
import { addDays, parseBusinessDate, utcDateOf } from '../../shared/business-calendar.js';
import { compare, type NewDifference } from './compare.js';
import { checkedReport, UnreadableReportError } from './report.js';
import * as runs from './repository.js';
import type { ReconciliationDeps, RunActor, RunOutcome } from './types.js';
import { differenceView, runView } from './views.js';

/**
 * Compares the acquirer's settlement report of a UTC date that is over with the ledger's clearing
 * entries of that date, and records the run with every difference (an alert when one is not timing).
 */
export async function run(
  deps: ReconciliationDeps,
  environment: Environment,
  reportDate: string,
  by: RunActor,
): Promise<RunOutcome> {
  const { db, clock, logger } = deps;
  let from: Date;
  try {
    from = parseBusinessDate(reportDate);
  } catch (error) {
    return err({ code: 'invalid_date', message: (error as Error).message });
  }
  if (reportDate >= utcDateOf(clock.now())) return err({ code: 'not_over', reportDate });
  const acquirer = deps.acquirerFor(environment);
  if (!acquirer) return err({ code: 'acquirer_not_configured', environment });

  // The acquirer's reports, by date: the date's own, and its neighbours' only when an item needs them.
  const reports = new Map<string, AcquirerSettlementReport>();
  const reportOf = async (date: string) => {
    let report = reports.get(date);
    if (!report) {
      report = checkedReport(await acquirer.settlementReport(date));
      reports.set(date, report);
    }
    return report;
  };
  let differences: NewDifference[];
  let report: AcquirerSettlementReport;
  const movements = await deps.ledger.clearingMovements(
    environment,
    from,
    new Date(from.getTime() + 86_400_000),
  );
  try {
    report = await reportOf(reportDate);
    const neighbours = async () => [
      await reportOf(addDays(reportDate, -1)),
      await reportOf(addDays(reportDate, 1)),
    ];
    differences = [
      ...(await compare(deps, {
        item: 'payment',
        acquirerItems: report.payments.map((p) => ({
          id: p.id,
          amount: BigInt(p.amount),
          at: p.succeededAt,
        })),
        movements: movements.filter((m) => m.kind === 'charge_succeeded'),
        kind: 'charge_succeeded',
        ours: deps.charges.byIds,
        byProviderIds: (ids) => deps.charges.byProviderIds(acquirer.name, ids),
        elsewhere: async (providerId) => {
          for (const other of await neighbours()) {
            const found = other.payments.find((p) => p.id === providerId);
            if (found) return { id: found.id, amount: BigInt(found.amount), at: found.succeededAt };
          }
          return undefined;
        },
      })),
      ...(await compare(deps, {
        item: 'refund',
        acquirerItems: report.refunds.map((r) => ({ id: r.id, amount: BigInt(r.amount), at: r.createdAt })),
        movements: movements.filter((m) => m.kind === 'refund'),
        kind: 'refund',
        ours: deps.refunds.byIds,
        byProviderIds: (ids) => deps.refunds.byProviderIds(environment, ids),
        elsewhere: async (providerId) => {
          for (const other of await neighbours()) {
            const found = other.refunds.find((r) => r.id === providerId);
            if (found) return { id: found.id, amount: BigInt(found.amount), at: found.createdAt };
          }
          return undefined;
        },
      })),
      ...(await compareDisputeFunds(deps, 'dispute_debit', report, movements, neighbours)),
      ...(await compareDisputeFunds(deps, 'dispute_reversal', report, movements, neighbours)),
    ];
  } catch (error) {
    if (
      error instanceof AcquirerUnavailableError ||
      error instanceof AcquirerRejectedError ||
      error instanceof UnreadableReportError
    ) {
      logger.warn(
        { environment, reportDate, error: error.message },
        'reconciliation: acquirer report unavailable',
      );
      return err({ code: 'acquirer_unavailable', message: error.message });
    }
    throw error;
  }

  const { id, row } = await recordRun(deps, environment, reportDate, by, report, movements, differences);
  logger.info(
    { runId: id, environment, reportDate, status: row.status, differences: differences.length },
    'reconciliation run',
  );
  return ok({ ...runView(row), differences: (await runs.differencesOf(db, id)).map(differenceView) });
}
const DISPUTE_LINES = {
  dispute_debit: { list: 'disputeDebits', kind: 'dispute_funds_withdrawn' },
  dispute_reversal: { list: 'disputeReversals', kind: 'dispute_funds_reinstated' },
} as const;

/**
 * The report's dispute lines (funds withdrawn, funds reinstated) against the ledger's dispute funds
 * entries: the gateway books each acquirer movement under the movement's own id, so our id and the
 * acquirer's are one and the entry itself says whose it is.
 */
async function compareDisputeFunds(
  deps: ReconciliationDeps,
  item: keyof typeof DISPUTE_LINES,
  report: AcquirerSettlementReport,
  movements: ClearingMovement[],
  neighbours: () => Promise<AcquirerSettlementReport[]>,
): Promise<NewDifference[]> {
  const { list, kind } = DISPUTE_LINES[item];
  const ofKind = movements.filter((m) => m.kind === kind);
  const asItem = (m: ClearingMovement) => ({
    id: m.sourceId,
    providerId: m.sourceId,
    organizationId: m.organizationId,
    status: 'booked',
  });
  const byId = new Map(ofKind.map((m) => [m.sourceId, m]));
  const lineOf = (line: { id: string; amount: string; createdAt: string }) => ({
    id: line.id,
    amount: BigInt(line.amount),
    at: line.createdAt,
  });
  return compare(deps, {
    item,
    acquirerItems: (report[list] ?? []).map(lineOf),
    movements: ofKind,
    kind,
    ours: async (ids) => ids.flatMap((id) => (byId.has(id) ? [asItem(byId.get(id)!)] : [])),
    byProviderIds: async (ids) => (await deps.ledger.clearingMovementsOf(kind, ids)).map(asItem),
    elsewhere: async (providerId) => {
      for (const other of await neighbours()) {
        const found = (other[list] ?? []).find((line) => line.id === providerId);
        if (found) return lineOf(found);
      }
      return undefined;
    },
  });
}

/** Records the run and its differences in one transaction, with its audit entry and alert. */
async function recordRun(
  deps: ReconciliationDeps,
  environment: Environment,
  reportDate: string,
  by: RunActor,
  report: AcquirerSettlementReport,
  movements: ClearingMovement[],
  differences: NewDifference[],
): Promise<{ id: string; row: runs.RunRow }> {
  const { db, clock } = deps;
  const sum = (amounts: Iterable<bigint>) => [...amounts].reduce((total, amount) => total + amount, 0n);
  const ledgerCharges = movements.filter((m) => m.kind === 'charge_succeeded');
  const ledgerRefunds = movements.filter((m) => m.kind === 'refund');
  // Dispute funds count in the nets (withdrawn out, reinstated back), as the acquirer's report nets them.
  const ledgerDisputes = sum(
    movements.map((m) =>
      m.kind === 'dispute_funds_withdrawn'
        ? -m.amount
        : m.kind === 'dispute_funds_reinstated'
          ? m.amount
          : 0n,
    ),
  );
  const reportDisputes =
    sum((report.disputeReversals ?? []).map((line) => BigInt(line.amount))) -
    sum((report.disputeDebits ?? []).map((line) => BigInt(line.amount)));
  const significant = differences.filter((difference) => difference.kind !== 'timing').length;
  const now = clock.now();
  const id = newId('rcn', now);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await runs.insertRun(
      trx,
      {
        id,
        environment,
        report_date: reportDate,
        origin: by.origin,
        status: significant > 0 ? 'differences' : 'matched',
        acquirer_payments: report.payments.length,
        acquirer_refunds: report.refunds.length,
        acquirer_net: (
          sum(report.payments.map((p) => BigInt(p.amount))) -
          sum(report.refunds.map((r) => BigInt(r.amount))) +
          reportDisputes
        ).toString(),
        ledger_payments: ledgerCharges.length,
        ledger_refunds: ledgerRefunds.length,
        ledger_net: (
          sum(ledgerCharges.map((m) => m.amount)) -
          sum(ledgerRefunds.map((m) => m.amount)) +
          ledgerDisputes
        ).toString(),
        difference_count: differences.length,
        run_by: by.actor,
        created_at: now,
      },
      differences.map((difference, position) => ({ ...difference, run_id: id, position })),
    );
    if (by.origin === 'operator') {
      await deps.audit.record(trx, {
        actor: by.actor,
        action: 'reconciliation.run',
        targetType: 'reconciliation_run',
        targetId: id,
        organizationId: null,
        after: { environment, reportDate, status: inserted.status, differences: differences.length },
        requestId: by.requestId ?? null,
        ip: by.ip ?? null,
      });
    }
    if (significant > 0) {
      await deps.alerts.raise(trx, {
        kind: 'reconciliation_differences',
        organizationId: null,
        environment,
        subjectId: `${environment}:${reportDate}`,
        message:
          `The ${environment} acquirer's settlement report of ${reportDate} and the ledger differ: ` +
          `${significant} difference(s), run ${id}.`,
        details: { runId: id, environment, reportDate, differences: significant },
      });
    }
    return inserted;
  });
  return { id, row };
}
