import type { Kdb } from '../../../db/database.js';
import type { Environment } from '../../../db/schema.js';
import type { Owner } from '../../../shared/owner.js';
import {
  CountIndex,
  currentFigures,
  historyOf,
  monthRange,
  pageRange,
  SCHEMES,
  type CurrentFigure,
  type SchemeFigures,
} from './figures.js';
import { monthOf, type RatioKind, type RatioSettings } from './levels.js';
import { countsOf, readSettings } from './repository.js';
import type { DisputeRatiosView } from './schemas.js';

/** What the read use cases need: the database they count on and the time. */
export interface RatioReadDeps {
  db: Kdb;
  clock: { now(): Date };
}

const strip = <F>({ figure, projected, levels }: CurrentFigure<F>) => ({
  ...figure,
  projected,
  levels: levels.map(({ proximityBps: _omitted, ...level }) => level),
});

/** One owner's ratios: the month so far with its projection and levels, and six months of history. */
export async function ratiosOf(deps: RatioReadDeps, owner: Owner): Promise<DisputeRatiosView> {
  const now = deps.clock.now();
  const settings = await readSettings(deps.db);
  const index = new CountIndex();
  const scope = { organizationId: owner.organizationId, environment: owner.environment };
  for (const row of await countsOf(deps.db, scope, pageRange(now))) index.add(row);
  return {
    object: 'dispute_ratios',
    month: monthOf(now).key,
    asOf: now.toISOString(),
    countFraudAndDisputeOnce: settings.countFraudAndDisputeOnce,
    schemes: SCHEMES.map((scheme) => {
      const current = currentFigures(index, scheme, settings, now);
      return {
        scheme,
        visaStyle: strip(current.visaStyle),
        mastercardStyle: strip(current.mastercardStyle),
        history: historyOf(index, scheme, settings, now),
      };
    }),
  };
}

/** Every owner with card activity this month, and its figures of the month per scheme. */
export interface OwnerMonth {
  organizationId: string;
  environment: Environment;
  schemes: SchemeFigures[];
}

/**
 * The month so far of every owner with card activity this month (sales, chargebacks or warnings): one
 * statement (`countsOf` of every owner), then each owner's figures in memory.
 */
export async function everyOwnerMonth(
  deps: RatioReadDeps,
  settings: RatioSettings,
  now: Date,
): Promise<OwnerMonth[]> {
  const indexes = new Map<string, { organizationId: string; environment: Environment; index: CountIndex }>();
  for (const row of await countsOf(deps.db, 'all', monthRange(now))) {
    const key = `${row.organization_id}|${row.environment}`;
    let entry = indexes.get(key);
    if (entry === undefined) {
      entry = { organizationId: row.organization_id, environment: row.environment, index: new CountIndex() };
      indexes.set(key, entry);
    }
    entry.index.add(row);
  }
  return [...indexes.values()]
    .map(({ organizationId, environment, index }) => ({
      organizationId,
      environment,
      schemes: SCHEMES.map((scheme) => currentFigures(index, scheme, settings, now)),
    }))
    .filter((owner) => owner.schemes.some(hasActivity));
}

const hasActivity = (figures: SchemeFigures) =>
  figures.visaStyle.figure.sales > 0 ||
  figures.visaStyle.figure.counted > 0 ||
  figures.mastercardStyle.figure.chargebacks > 0;

/** The level an owner is closest to, over its schemes and ratios, and every level it crossed. */
export function closestOf(owner: OwnerMonth) {
  let best: {
    scheme: SchemeFigures['scheme'];
    ratio: RatioKind;
    level: string;
    bps: bigint;
    proximityPercent: string;
    percent: string | null;
    count: number;
    projectedPercent: string | null;
  } | null = null;
  const crossed: string[] = [];
  for (const figures of owner.schemes) {
    for (const ratio of ['visa_style', 'mastercard_style'] as const) {
      const current = ratio === 'visa_style' ? figures.visaStyle : figures.mastercardStyle;
      const count =
        ratio === 'visa_style'
          ? figures.visaStyle.figure.counted
          : figures.mastercardStyle.figure.chargebacks;
      for (const level of current.levels) {
        if (level.crossed) crossed.push(`${figures.scheme}:${ratio}:${level.level}`);
        if (best === null || level.proximityBps >= best.bps) {
          best = {
            scheme: figures.scheme,
            ratio,
            level: level.level,
            bps: level.proximityBps,
            proximityPercent: level.proximityPercent,
            percent: current.figure.percent,
            count,
            projectedPercent: current.projected.percent,
          };
        }
      }
    }
  }
  return best === null ? null : { ...best, crossed };
}

/** The operator's watchlist: organizations with card activity this month, closest to a threshold first. */
export async function watchlist(
  deps: RatioReadDeps,
  filter: { environment?: Environment | undefined; limit: number },
) {
  const now = deps.clock.now();
  const settings = await readSettings(deps.db);
  const owners = await everyOwnerMonth(deps, settings, now);
  const rows = owners
    .filter((owner) => filter.environment === undefined || owner.environment === filter.environment)
    .flatMap((owner) => {
      const closest = closestOf(owner);
      return closest === null ? [] : [{ owner, closest }];
    })
    .sort(
      (a, b) =>
        Number(b.closest.bps - a.closest.bps) ||
        a.owner.organizationId.localeCompare(b.owner.organizationId) ||
        a.owner.environment.localeCompare(b.owner.environment),
    )
    .slice(0, filter.limit);
  return {
    month: monthOf(now).key,
    asOf: now.toISOString(),
    data: rows.map(({ owner, closest }) => ({
      organizationId: owner.organizationId,
      environment: owner.environment,
      proximityPercent: closest.proximityPercent,
      scheme: closest.scheme,
      ratio: closest.ratio,
      level: closest.level,
      crossed: closest.crossed,
      percent: closest.percent,
      count: closest.count,
      projectedPercent: closest.projectedPercent,
    })),
  };
}
