import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type {
  Environment,
  ReconciliationDifferenceKind,
  ReconciliationDifferencesTable,
} from '../../db/schema.js';
import type { Insertable } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { toPage, type CursorCodec, type CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerSettlementReport,
} from '../acquirer/index.js';
import type { AuditLog } from '../audit/service.js';
import type { ClearingMovement } from '../ledger/service.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import { addDays, parseBusinessDate, utcDateOf } from '../settlement/calendar.js';
import * as runs from './repository.js';

/** A charge or refund as reconciliation sees it: its owner, status and the acquirer's id. */
export interface ItemAtAcquirer {
  id: string;
  organizationId: string;
  status: string;
  providerId: string | null;
}

export interface ReconciliationDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** The acquirer of an environment; none for live until one is configured. */
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  ledger: {
    clearingMovements(environment: Environment, from: Date, to: Date): Promise<ClearingMovement[]>;
    clearingMovementsOf(
      kind: ClearingMovement['kind'],
      sourceIds: readonly string[],
    ): Promise<ClearingMovement[]>;
  };
  /** The charges module's lookups: by our ids, and by the acquirer's payment ids. */
  charges: {
    byIds(ids: readonly string[]): Promise<ItemAtAcquirer[]>;
    byProviderIds(provider: string, providerIds: readonly string[]): Promise<ItemAtAcquirer[]>;
  };
  /** The refunds module's lookups: by our ids, and by the acquirer's refund ids. */
  refunds: {
    byIds(ids: readonly string[]): Promise<ItemAtAcquirer[]>;
    byProviderIds(environment: Environment, providerIds: readonly string[]): Promise<ItemAtAcquirer[]>;
  };
  alerts: AlertRaiser;
  audit: AuditLog;
}

export type ReconciliationError =
  | { code: 'invalid_date'; message: string }
  | { code: 'not_over'; reportDate: string }
  | { code: 'acquirer_not_configured'; environment: Environment }
  | { code: 'acquirer_unavailable'; message: string };

export interface RunActor {
  actor: string;
  origin: 'schedule' | 'operator';
  requestId?: string | null | undefined;
  ip?: string | null | undefined;
}

export interface DifferenceView {
  kind: ReconciliationDifferenceKind;
  item: 'payment' | 'refund';
  providerId: string | null;
  gatewayId: string | null;
  organizationId: string | null;
  acquirerAmount: string | null;
  ledgerAmount: string | null;
  acquirerAt: string | null;
  ledgerAt: string | null;
}

export interface RunView {
  id: string;
  object: 'reconciliation_run';
  environment: Environment;
  reportDate: string;
  origin: 'schedule' | 'operator';
  status: 'matched' | 'differences';
  acquirer: { payments: number; refunds: number; net: string };
  ledger: { payments: number; refunds: number; net: string };
  differenceCount: number;
  runBy: string;
  createdAt: string;
}

export type RunDetail = RunView & { differences: DifferenceView[] };

export interface Reconciliation {
  /**
   * Compares the acquirer's settlement report of a UTC date that is over with the ledger's clearing
   * entries of that date, and records the run with every difference (an alert when one is not timing).
   */
  run(
    environment: Environment,
    reportDate: string,
    by: RunActor,
  ): Promise<Result<RunDetail, ReconciliationError>>;
  /**
   * The daily job: the UTC date before `periodStart`, for each environment with an acquirer, unless a
   * scheduled run of it exists. Throws when an acquirer could not be read (the job runs the period again).
   */
  runDay(periodStart: Date): Promise<RunView[]>;
  list(
    filter: runs.RunFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<{ data: RunView[]; nextCursor: string | null }, CursorError>>;
  retrieve(id: string): Promise<RunDetail | undefined>;
}

const SCHEDULE_ACTOR = 'system:reconciliation';

/** One side of a matched pair, or an item only one side has. */
interface AcquirerItem {
  id: string;
  amount: bigint;
  at: string;
}

export function createReconciliation(deps: ReconciliationDeps): Reconciliation {
  const { db, clock, logger } = deps;

  async function run(
    environment: Environment,
    reportDate: string,
    by: RunActor,
  ): Promise<Result<RunDetail, ReconciliationError>> {
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
    let differences: Array<Omit<Insertable<ReconciliationDifferencesTable>, 'run_id' | 'position'>>;
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
        ...(await compare({
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
        ...(await compare({
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

    const sum = (amounts: Iterable<bigint>) => [...amounts].reduce((total, amount) => total + amount, 0n);
    const ledgerCharges = movements.filter((m) => m.kind === 'charge_succeeded');
    const ledgerRefunds = movements.filter((m) => m.kind === 'refund');
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
            sum(report.refunds.map((r) => BigInt(r.amount)))
          ).toString(),
          ledger_payments: ledgerCharges.length,
          ledger_refunds: ledgerRefunds.length,
          ledger_net: (
            sum(ledgerCharges.map((m) => m.amount)) - sum(ledgerRefunds.map((m) => m.amount))
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
    logger.info(
      { runId: id, environment, reportDate, status: row.status, differences: differences.length },
      'reconciliation run',
    );
    return ok({ ...runView(row), differences: (await runs.differencesOf(db, id)).map(differenceView) });
  }

  /**
   * One kind of item: pairs the acquirer's items of the date with the ledger's by the acquirer's id; an
   * item only one side has on the date is looked for on the other side's neighbouring dates (timing).
   */
  async function compare(input: {
    item: 'payment' | 'refund';
    acquirerItems: AcquirerItem[];
    movements: ClearingMovement[];
    kind: ClearingMovement['kind'];
    ours: (ids: readonly string[]) => Promise<ItemAtAcquirer[]>;
    byProviderIds: (ids: readonly string[]) => Promise<ItemAtAcquirer[]>;
    elsewhere: (providerId: string) => Promise<AcquirerItem | undefined>;
  }) {
    const found: Array<Omit<Insertable<ReconciliationDifferencesTable>, 'run_id' | 'position'>> = [];
    const difference = (
      kind: ReconciliationDifferenceKind,
      acquirerItem: AcquirerItem | undefined,
      ours: { item?: ItemAtAcquirer | undefined; movement?: ClearingMovement | undefined },
      providerId: string | null,
    ) =>
      found.push({
        kind,
        item: input.item,
        provider_id: providerId,
        gateway_id: ours.movement?.sourceId ?? ours.item?.id ?? null,
        organization_id: ours.movement?.organizationId ?? ours.item?.organizationId ?? null,
        acquirer_amount: acquirerItem?.amount.toString() ?? null,
        ledger_amount: ours.movement?.amount.toString() ?? null,
        acquirer_at: acquirerItem ? new Date(acquirerItem.at) : null,
        ledger_at: ours.movement?.bookedAt ?? null,
      });

    const itemsOfMovements = new Map(
      (await input.ours(input.movements.map((m) => m.sourceId))).map((item) => [item.id, item]),
    );
    const movementByProvider = new Map<string, ClearingMovement>();
    for (const movement of input.movements) {
      const providerId = itemsOfMovements.get(movement.sourceId)?.providerId;
      if (providerId) movementByProvider.set(providerId, movement);
    }

    const matched = new Set<string>();
    const unmatched: AcquirerItem[] = [];
    // A line the report repeats is settled twice by the acquirer: the ledger has one entry for it at most.
    const seen = new Set<string>();
    const repeated: AcquirerItem[] = [];
    for (const acquirerItem of input.acquirerItems) {
      if (seen.has(acquirerItem.id)) {
        repeated.push(acquirerItem);
        continue;
      }
      seen.add(acquirerItem.id);
      const movement = movementByProvider.get(acquirerItem.id);
      if (!movement) {
        unmatched.push(acquirerItem);
        continue;
      }
      matched.add(movement.sourceId);
      if (movement.amount !== acquirerItem.amount) {
        difference('amount_mismatch', acquirerItem, { movement }, acquirerItem.id);
      }
    }

    // The acquirer's items the ledger did not book on the date: booked on another date, or not at all.
    const known = new Map(
      (await input.byProviderIds([...unmatched, ...repeated].map((item) => item.id))).map((item) => [
        item.providerId,
        item,
      ]),
    );
    const bookedElsewhere = new Map(
      (
        await deps.ledger.clearingMovementsOf(
          input.kind,
          [...known.values()].map((item) => item.id),
        )
      ).map((movement) => [movement.sourceId, movement]),
    );
    for (const acquirerItem of unmatched) {
      const item = known.get(acquirerItem.id);
      const movement = item && bookedElsewhere.get(item.id);
      if (!movement) difference('missing_in_ledger', acquirerItem, { item }, acquirerItem.id);
      else {
        const kind = movement.amount === acquirerItem.amount ? 'timing' : 'amount_mismatch';
        difference(kind, acquirerItem, { item, movement }, acquirerItem.id);
      }
    }
    for (const acquirerItem of repeated) {
      difference('missing_in_ledger', acquirerItem, { item: known.get(acquirerItem.id) }, acquirerItem.id);
    }

    // The ledger's items of the date the acquirer did not report on it: on a neighbouring date, or not at all.
    for (const movement of input.movements) {
      if (matched.has(movement.sourceId)) continue;
      const item = itemsOfMovements.get(movement.sourceId);
      const providerId = item?.providerId ?? null;
      const acquirerItem = providerId === null ? undefined : await input.elsewhere(providerId);
      if (!acquirerItem) difference('missing_at_acquirer', undefined, { item, movement }, providerId);
      else {
        const kind = movement.amount === acquirerItem.amount ? 'timing' : 'amount_mismatch';
        difference(kind, acquirerItem, { item, movement }, providerId);
      }
    }
    return found;
  }

  return {
    run,

    async runDay(periodStart) {
      const reportDate = addDays(utcDateOf(periodStart), -1);
      const made: RunView[] = [];
      const problems: string[] = [];
      for (const environment of ['sandbox', 'live'] as const) {
        if (!deps.acquirerFor(environment)) continue;
        const earlier = await runs.listRuns(
          db,
          { environment, reportDate, origin: 'schedule' },
          undefined,
          1,
        );
        if (earlier.length > 0) continue;
        const result = await run(environment, reportDate, { actor: SCHEDULE_ACTOR, origin: 'schedule' });
        if (result.ok) made.push(result.value);
        else problems.push(`${environment}: ${result.error.code}`);
      }
      if (problems.length > 0) {
        throw new Error(`reconciliation of ${reportDate}: ${problems.join(', ')}; the period runs again`);
      }
      return made;
    },

    async list(filter, page) {
      const pages = deps.cursors.for({
        list: 'reconciliation_runs',
        filter: JSON.stringify([filter.environment, filter.reportDate]),
      });
      const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
      if (after && !after.ok) return err(after.error);
      const rows = await runs.listRuns(db, filter, after?.value, page.limit + 1);
      const listed = toPage(rows, page.limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: listed.data.map(runView), nextCursor: listed.nextCursor });
    },

    async retrieve(id) {
      const row = await runs.findRun(db, id);
      if (!row) return undefined;
      return { ...runView(row), differences: (await runs.differencesOf(db, id)).map(differenceView) };
    },
  };
}

/** A settlement report reconciliation cannot compare: another currency, or a line that is not one. */
class UnreadableReportError extends Error {}

const WHOLE_MINOR = /^[0-9]{1,18}$/;

/**
 * The report as the acquirer protocol states it (docs/sandbox-acquirer.md), or UnreadableReportError: its
 * amounts are compared as TRY minor units, so a report in another currency or with a line that has no
 * id, a whole amount or a time would be matched (or fail) as if it were one.
 */
function checkedReport(report: AcquirerSettlementReport): AcquirerSettlementReport {
  const refuse = (problem: string): never => {
    throw new UnreadableReportError(`the settlement report ${problem}`);
  };
  const value = report as unknown as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null) refuse('is not an object');
  if (value?.currency !== 'TRY') refuse(`is not in TRY (${String(value?.currency).slice(0, 10)})`);
  const lines = (name: 'payments' | 'refunds', at: 'succeededAt' | 'createdAt') => {
    const list = value?.[name];
    if (!Array.isArray(list)) return refuse(`has no ${name} list`);
    list.forEach((line: unknown, index) => {
      const item = line as Record<string, unknown> | null;
      const ok =
        typeof item === 'object' &&
        item !== null &&
        typeof item.id === 'string' &&
        item.id !== '' &&
        typeof item.amount === 'string' &&
        WHOLE_MINOR.test(item.amount) &&
        typeof item[at] === 'string' &&
        !Number.isNaN(Date.parse(item[at]));
      if (!ok) refuse(`has a ${name} line (${index}) without an id, a whole amount in minor units or ${at}`);
    });
  };
  lines('payments', 'succeededAt');
  lines('refunds', 'createdAt');
  return report;
}

function runView(row: runs.RunRow): RunView {
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

function differenceView(row: runs.DifferenceRow): DifferenceView {
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
