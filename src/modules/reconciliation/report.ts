import type { AcquirerSettlementReport } from '../acquirer/index.js';

/** A settlement report reconciliation cannot compare: another currency, or a line that is not one. */
export class UnreadableReportError extends Error {}

const WHOLE_MINOR = /^[0-9]{1,18}$/;

/**
 * The report as the acquirer protocol states it (docs/sandbox-acquirer.md), or UnreadableReportError: its
 * amounts are compared as TRY minor units, so a report in another currency or with a line that has no
 * id, a whole amount or a time would be matched (or fail) as if it were one.
 */
export function checkedReport(report: AcquirerSettlementReport): AcquirerSettlementReport {
  const refuse = (problem: string): never => {
    throw new UnreadableReportError(`the settlement report ${problem}`);
  };
  const value = report as unknown as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null) refuse('is not an object');
  if (value?.currency !== 'TRY') refuse(`is not in TRY (${String(value?.currency).slice(0, 10)})`);
  const lines = (
    name: 'payments' | 'refunds' | 'disputeDebits' | 'disputeReversals',
    at: 'succeededAt' | 'createdAt',
  ) => {
    const list = value?.[name];
    if (list === undefined && (name === 'disputeDebits' || name === 'disputeReversals')) return;
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
  lines('disputeDebits', 'createdAt');
  lines('disputeReversals', 'createdAt');
  return report;
}
