import type { Kdb, Trx } from '../../../db/database.js';
import type { Environment } from '../../../db/schema.js';
import { DAY, MINUTE } from '../../../shared/clock.js';
import type { Owner } from '../../../shared/owner.js';
import {
  CountIndex,
  currentFigures,
  historyOf,
  monthContext,
  monthRange,
  pageRange,
  SCHEMES,
  type CurrentFigure,
  type SchemeFigures,
} from './figures.js';
import { monthOf, type RatioKind, type RatioSettings } from './levels.js';
import {
  countsOf,
  dayOf,
  ensureSummary,
  forgetDays,
  readSettings,
  recountDays,
  summarisedCounts,
  summaryOf,
  touchedDays,
  writeSummary,
  type SummaryState,
} from './repository.js';
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

/**
 * One owner's ratios: the month so far with its projection and levels, and six months of history. The
 * closed days come from the owner's summary (brought up to date first when a day has closed or a write
 * touched one, ADR 0077), the days since are counted live: the same counts as counting every row.
 */
export async function ratiosOf(deps: RatioReadDeps, owner: Owner): Promise<DisputeRatiosView> {
  const now = deps.clock.now();
  const settings = await readSettings(deps.db);
  const range = pageRange(now);
  const until = await summarisedUntil(deps, owner, range, now);
  const index = new CountIndex();
  for (const row of await summarisedCounts(deps.db, owner, range, until)) index.add(row);
  const live = new Date(`${until}T00:00:00.000Z`);
  const scope = { organizationId: owner.organizationId, environment: owner.environment };
  const since = { salesFrom: later(live, range.salesFrom), from: later(live, range.from), to: range.to };
  for (const row of await countsOf(deps.db, scope, since)) index.add(row);
  const context = monthContext(settings, now);
  return {
    object: 'dispute_ratios',
    month: monthOf(now).key,
    asOf: now.toISOString(),
    countFraudAndDisputeOnce: settings.countFraudAndDisputeOnce,
    schemes: SCHEMES.map((scheme) => {
      const current = currentFigures(index, scheme, context);
      return {
        scheme,
        visaStyle: strip(current.visaStyle),
        mastercardStyle: strip(current.mastercardStyle),
        history: historyOf(index, scheme, settings, now),
      };
    }),
  };
}

const later = (a: Date, b: Date) => (a > b ? a : b);

/**
 * How long after its clock time a write may still commit, at most: a day is summarised once it ended that
 * long ago, and writes that recent are looked at again by the next read.
 */
const SETTLE_MS = 10 * MINUTE;

/** The days from `from` (inclusive) to `until` (exclusive), `YYYY-MM-DD`. */
function daysBetween(from: string, until: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00.000Z`); dayOf(new Date(at)) < until; at += DAY)
    days.push(dayOf(new Date(at)));
  return days;
}

/**
 * The first day the owner's page counts live: before it, every day from the oldest month the page reads
 * is in its summary. A read that finds a day closed since, or a summarised day touched by a dispute or a
 * fraud warning written since, recounts those days first (in one transaction, the summary's row locked);
 * any other read only reads.
 */
async function summarisedUntil(
  deps: RatioReadDeps,
  owner: Owner,
  range: { salesFrom: Date },
  now: Date,
): Promise<string> {
  const horizon = dayOf(range.salesFrom);
  const target = dayOf(new Date(now.getTime() - SETTLE_MS));
  const state = await summaryOf(deps.db, owner);
  if (state !== null && !stale(state, horizon, target, now)) {
    const touched = await touchedDays(deps.db, owner, touchedSince(state, horizon));
    if (touched.length === 0) return state.daysUntil;
  }
  return deps.db.transaction().execute((trx) => refreshSummary(trx, owner, { horizon, target, now }));
}

const touchedSince = (state: SummaryState, horizon: string) => ({
  since: state.writesBefore,
  from: horizon,
  until: state.daysUntil,
});

/** A summary that does not start at the horizon, or holds today (the clock went back): rebuilt. */
const misplaced = (state: SummaryState, horizon: string, now: Date) =>
  state.daysFrom > horizon || state.daysUntil < horizon || state.daysUntil > dayOf(now);

const stale = (state: SummaryState, horizon: string, target: string, now: Date) =>
  misplaced(state, horizon, now) || state.daysUntil < target;

async function refreshSummary(
  trx: Trx,
  owner: Owner,
  { horizon, target, now }: { horizon: string; target: string; now: Date },
): Promise<string> {
  await ensureSummary(trx, owner, horizon, now);
  const state = await summaryOf(trx, owner, true);
  if (state === null)
    throw new Error(`no dispute ratio summary of ${owner.organizationId} after creating it`);
  const rebuild = misplaced(state, horizon, now);
  if (rebuild) await forgetDays(trx, owner);
  const touched = rebuild ? [] : await touchedDays(trx, owner, touchedSince(state, horizon));
  const from = rebuild ? horizon : state.daysUntil;
  const until = from > target ? from : target;
  await recountDays(trx, owner, [...new Set([...touched, ...daysBetween(from, target)])]);
  await forgetDays(trx, owner, horizon);
  // What this transaction recounted reflects every write committed before it; a write of the last few
  // minutes may still be committing, so it is looked at again.
  await writeSummary(trx, owner, {
    daysFrom: horizon,
    daysUntil: until,
    writesBefore: new Date(now.getTime() - SETTLE_MS),
    refreshedAt: now,
  });
  return until;
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
  const context = monthContext(settings, now);
  return [...indexes.values()]
    .map(({ organizationId, environment, index }) => ({
      organizationId,
      environment,
      schemes: SCHEMES.map((scheme) => currentFigures(index, scheme, context)),
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
