import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../../db/database.js';
import type { AlertRaiser } from '../../../shared/alerts.js';
import type { EmailService } from '../../email/service.js';
import { ratioLevelCrossedEmail } from './email.js';
import type { LevelStatus, SchemeFigures } from './figures.js';
import { monthOf, type RatioKind } from './levels.js';
import { everyOwnerMonth, type OwnerMonth } from './read.js';
import { readSettings } from './repository.js';

export interface RatioEvaluationDeps {
  db: Kdb;
  clock: { now(): Date };
  alerts: AlertRaiser;
  mailer: Pick<EmailService, 'enqueue' | 'nudge'>;
  /** The e-mail addresses of the organization's active owners. */
  ownerEmails: (trx: Trx, organizationId: string) => Promise<string[]>;
  dashboardUrl: () => string;
  logger: Logger;
}

/** What one evaluation did: owners looked at, levels newly raised, owners that failed (logged). */
export interface RatioEvaluation {
  owners: number;
  raised: number;
  failed: number;
}

/**
 * The hourly evaluation (docs/dispute-ratios.md "The job"): the month so far of every organization with
 * card activity this month, in one statement; each level crossed raises the operator alert
 * `dispute_ratio` once per organization, environment, month, scheme and level, and the alert's first
 * raising e-mails the organization's owners in the same transaction. Running it again raises nothing new.
 */
export async function evaluateRatios(deps: RatioEvaluationDeps): Promise<RatioEvaluation> {
  const now = deps.clock.now();
  const settings = await readSettings(deps.db);
  const owners = await everyOwnerMonth(deps, settings, now);
  const report: RatioEvaluation = { owners: owners.length, raised: 0, failed: 0 };
  for (const owner of owners) {
    const crossed = crossedLevels(owner);
    if (crossed.length === 0) continue;
    try {
      report.raised += await deps.db.transaction().execute(async (trx) => {
        let raised = 0;
        for (const level of crossed) if (await raiseOnce(deps, trx, owner, level, now)) raised += 1;
        return raised;
      });
    } catch (error) {
      report.failed += 1;
      deps.logger.error(
        { err: error, organizationId: owner.organizationId },
        'dispute ratio evaluation failed',
      );
    }
  }
  if (report.raised > 0) deps.mailer.nudge();
  return report;
}

interface Crossed {
  figures: SchemeFigures;
  ratio: RatioKind;
  status: LevelStatus;
}

function crossedLevels(owner: OwnerMonth): Crossed[] {
  return owner.schemes.flatMap((figures) =>
    (['visa_style', 'mastercard_style'] as const).flatMap((ratio) =>
      (ratio === 'visa_style' ? figures.visaStyle : figures.mastercardStyle).levels
        .filter((status) => status.crossed)
        .map((status) => ({ figures, ratio, status })),
    ),
  );
}

async function raiseOnce(
  deps: RatioEvaluationDeps,
  trx: Trx,
  owner: OwnerMonth,
  { figures, ratio, status }: Crossed,
  now: Date,
): Promise<boolean> {
  const month = monthOf(now).key;
  const figure =
    ratio === 'visa_style'
      ? {
          count: figures.visaStyle.figure.counted,
          sales: figures.visaStyle.figure.sales,
          percent: figures.visaStyle.figure.percent,
        }
      : {
          count: figures.mastercardStyle.figure.chargebacks,
          sales: figures.mastercardStyle.figure.previousMonthSales,
          percent: figures.mastercardStyle.figure.percent,
        };
  const raised = await deps.alerts.raise(trx, {
    kind: 'dispute_ratio',
    organizationId: owner.organizationId,
    environment: owner.environment,
    subjectId: `${owner.organizationId}:${owner.environment}:${month}:${figures.scheme}:${status.level}`,
    message:
      `The ${figures.scheme} ${ratio.replace('_', '-')} ratio of ${month} is ${figure.percent ?? 'unbounded'}% ` +
      `(${figure.count} counted over ${figure.sales}), past the ${status.level} level ` +
      `(${status.thresholdPercent}% with at least ${status.minimumCount}).`,
    details: {
      month,
      scheme: figures.scheme,
      ratio,
      level: status.level,
      count: figure.count,
      sales: figure.sales,
      percent: figure.percent,
      thresholdPercent: status.thresholdPercent,
      minimumCount: status.minimumCount,
    },
  });
  if (!raised) return false;
  const email = ratioLevelCrossedEmail({
    scheme: figures.scheme,
    ratio,
    level: status.level,
    month,
    environment: owner.environment,
    percent: figure.percent,
    thresholdPercent: status.thresholdPercent,
    count: figure.count,
    minimumCount: status.minimumCount,
    dashboardUrl: deps.dashboardUrl(),
  });
  for (const to of await deps.ownerEmails(trx, owner.organizationId))
    await deps.mailer.enqueue(trx, to, email);
  return true;
}
