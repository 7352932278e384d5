import type { Kdb } from '../../../db/database.js';
import type { ValidationIssue } from '../../../http/errors.js';
import { err, ok, type Result } from '../../../shared/result.js';
import type { AuditLog } from '../../audit/service.js';
import type { RatioSettingsError } from './errors.js';
import { percentToPpm, ppmToPercent, type RatioLevel, type RatioSettings } from './levels.js';
import { readSettings, writeSettings } from './repository.js';
import type { RatioSettingsBody, RatioSettingsView } from './schemas.js';

/** The operator's settings of the ratios (docs/dispute-ratios.md "Settings"): read, and replaced whole. */

export function settingsView(settings: RatioSettings): RatioSettingsView {
  return {
    object: 'dispute_ratio_settings',
    countFraudAndDisputeOnce: settings.countFraudAndDisputeOnce,
    levels: settings.levels.map(({ thresholdPpm, ...level }) => ({
      ...level,
      thresholdPercent: ppmToPercent(thresholdPpm),
    })),
    updatedBy: settings.updatedBy,
    updatedAt: settings.updatedAt.toISOString(),
  };
}

const issue = (path: string, message: string): ValidationIssue => ({
  path,
  in: 'body',
  code: 'invalid_value',
  message,
});

/**
 * What the schema cannot say: a threshold in (0, 100], months in order, and a level's name once per scheme
 * and month (the alert's subject names the scheme and the level).
 */
export function checkLevels(levels: RatioSettingsBody['levels']): Result<RatioLevel[], RatioSettingsError> {
  const issues: ValidationIssue[] = [];
  const parsed = levels.map((level, i) => {
    const thresholdPpm = percentToPpm(level.thresholdPercent);
    if (thresholdPpm <= 0 || thresholdPpm > 1_000_000)
      issues.push(issue(`levels.${i}.thresholdPercent`, 'A threshold is above 0 and at most 100 percent.'));
    if (level.fromMonth !== null && level.untilMonth !== null && level.fromMonth > level.untilMonth)
      issues.push(issue(`levels.${i}.untilMonth`, 'The last month is not before the first.'));
    return { ...level, thresholdPpm };
  });
  parsed.forEach((level, i) => {
    const clash = parsed.findIndex(
      (other, j) =>
        j < i &&
        other.scheme === level.scheme &&
        other.level === level.level &&
        (other.fromMonth ?? '0000-00') <= (level.untilMonth ?? '9999-99') &&
        (level.fromMonth ?? '0000-00') <= (other.untilMonth ?? '9999-99'),
    );
    if (clash >= 0)
      issues.push(
        issue(
          `levels.${i}`,
          `Level ${level.level} of ${level.scheme} overlaps levels.${clash} in months (a level is named once per scheme and month).`,
        ),
      );
  });
  if (issues.length > 0) return err({ code: 'invalid_ratio_settings', issues });
  return ok(
    parsed.map(({ scheme, ratio, level, thresholdPpm, minimumCount, fromMonth, untilMonth }) => ({
      scheme,
      ratio,
      level,
      thresholdPpm,
      minimumCount,
      fromMonth,
      untilMonth,
    })),
  );
}

export async function getSettings(deps: { db: Kdb }): Promise<RatioSettingsView> {
  return settingsView(await readSettings(deps.db));
}

/** Replaces the settings, audited (`dispute_ratio_settings.updated`, before and after) in one transaction. */
export async function updateSettings(
  deps: { db: Kdb; clock: { now(): Date }; audit: AuditLog },
  body: RatioSettingsBody,
  by: { actor: string; requestId?: string | null; ip?: string | null },
): Promise<Result<RatioSettingsView, RatioSettingsError>> {
  const levels = checkLevels(body.levels);
  if (!levels.ok) return levels;
  const now = deps.clock.now();
  const after = await deps.db.transaction().execute(async (trx) => {
    await trx.selectFrom('dispute_ratio_settings').select('id').where('id', '=', 1).forUpdate().execute();
    const before = settingsView(await readSettings(trx));
    const next = { countFraudAndDisputeOnce: body.countFraudAndDisputeOnce, levels: levels.value };
    await writeSettings(trx, next, by.actor, now);
    const written = settingsView({ ...next, updatedBy: by.actor, updatedAt: now });
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'dispute_ratio_settings.updated',
      targetType: 'dispute_ratio_settings',
      targetId: 'platform',
      before,
      after: { ...written, reason: body.reason.trim() },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return written;
  });
  return ok(after);
}
