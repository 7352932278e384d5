import type { Environment } from '../../../db/schema.js';
import type { Owner } from '../../../shared/owner.js';
import type { Result } from '../../../shared/result.js';
import type { AuditLog } from '../../audit/service.js';
import type { RatioSettingsError } from './errors.js';
import { evaluateRatios, type RatioEvaluation, type RatioEvaluationDeps } from './evaluate.js';
import { ratiosOf, watchlist } from './read.js';
import type { DisputeRatiosView, RatioSettingsBody, RatioSettingsView } from './schemas.js';
import { getSettings, updateSettings } from './settings.js';

/** The card schemes' ratios per merchant (docs/dispute-ratios.md). */
export interface DisputeRatioService {
  /** One owner's month so far, its projection and six months of history, per scheme. */
  ratios(owner: Owner): Promise<DisputeRatiosView>;
  /** Organizations with card activity this month, closest to a threshold first. */
  watchlist(filter: { environment?: Environment | undefined; limit: number }): ReturnType<typeof watchlist>;
  settings(): Promise<RatioSettingsView>;
  /** Replaces the thresholds, minimum counts and the count-once setting; audited. */
  updateSettings(
    body: RatioSettingsBody,
    by: { actor: string; requestId?: string | null; ip?: string | null },
  ): Promise<Result<RatioSettingsView, RatioSettingsError>>;
  /** The hourly job's work: raises each level crossed once per month, and e-mails the owners. */
  evaluate(): Promise<RatioEvaluation>;
}

export function createDisputeRatioService(
  deps: RatioEvaluationDeps & { audit: AuditLog },
): DisputeRatioService {
  return {
    ratios: (owner) => ratiosOf(deps, owner),
    watchlist: (filter) => watchlist(deps, filter),
    settings: () => getSettings(deps),
    updateSettings: (body, by) => updateSettings(deps, body, by),
    evaluate: () => evaluateRatios(deps),
  };
}
