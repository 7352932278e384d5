import { Type } from 'typebox';
import type { Environment } from '../../db/schema.js';
import type { App } from '../../http/server.js';
import type { DisputeRatiosView } from '../disputes/ratios/schemas.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import { consoleRoute, type ConsoleKit } from './console-kit.js';
import { ENVIRONMENTS } from './schemas.js';

/** Organizations the watchlist shows at most. */
const WATCHLIST_LIMIT = 200;

const WatchlistQuery = Type.Object(
  { environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])) },
  { additionalProperties: false },
);

const RATIO_NAMES = { visa_style: 'Visa-style', mastercard_style: 'Mastercard-style' } as const;

/**
 * The ratio watchlist at `/dispute-ratios` (docs/dispute-ratios.md): every organization with card
 * activity this month, the closest to a level of any scheme's ratio first, filtered by environment, each
 * named and linked to its merchant view.
 */
export async function operatorDisputeRatioConsole(
  app: App,
  deps: {
    kit: ConsoleKit;
    ratios: Pick<DisputeRatioService, 'watchlist'>;
    organizations: Pick<OrganizationAdminService, 'names'>;
  },
): Promise<void> {
  app.get(
    '/dispute-ratios',
    consoleRoute('read', { querystring: WatchlistQuery }),
    async (request, reply) => {
      const environment = request.query.environment || undefined;
      const watchlist = await deps.ratios.watchlist({ environment, limit: WATCHLIST_LIMIT });
      const names = await deps.organizations.names(watchlist.data.map((row) => row.organizationId));
      return deps.kit.show(request, reply, 'operator/dispute-ratios', {
        title: 'Ratio watchlist',
        month: watchlist.month,
        asOf: watchlist.asOf,
        environment,
        environments: ENVIRONMENTS,
        limit: WATCHLIST_LIMIT,
        rows: watchlist.data.map((row) => ({
          ...row,
          name: names.get(row.organizationId) ?? row.organizationId,
          ratioName: RATIO_NAMES[row.ratio],
        })),
      });
    },
  );
}

type SchemeView = DisputeRatiosView['schemes'][number];
type PastMonth = SchemeView['history'][number];
/**
 * A scheme's figures as the API sends them: the schema's static type of a current figure keeps only its
 * projection and levels (TypeBox loses the members it spreads in), so the counts come from a past month's.
 */
type SchemeRatios = Omit<SchemeView, 'visaStyle' | 'mastercardStyle'> & {
  visaStyle: SchemeView['visaStyle'] & PastMonth['visaStyle'];
  mastercardStyle: SchemeView['mastercardStyle'] & PastMonth['mastercardStyle'];
};

/** One scheme's ratio as the merchant view's table shows it: the count, its divisor, so far and projected. */
function ratioRow(scheme: SchemeRatios, ratio: keyof typeof RATIO_NAMES) {
  const current = ratio === 'visa_style' ? scheme.visaStyle : scheme.mastercardStyle;
  // Proximity is a percentage with two decimals: its digits compare as hundredths.
  const hundredths = (percent: string) => Number(percent.replace('.', ''));
  const closest = current.levels.reduce<(typeof current.levels)[number] | undefined>(
    (best, level) =>
      best === undefined || hundredths(level.proximityPercent) >= hundredths(best.proximityPercent)
        ? level
        : best,
    undefined,
  );
  return {
    scheme: scheme.scheme,
    ratio,
    ratioName: RATIO_NAMES[ratio],
    count: ratio === 'visa_style' ? scheme.visaStyle.counted : scheme.mastercardStyle.chargebacks,
    sales: ratio === 'visa_style' ? scheme.visaStyle.sales : scheme.mastercardStyle.previousMonthSales,
    percent: current.percent,
    projectedPercent: current.projected.percent,
    closest: closest ?? null,
    crossed: current.levels.filter((level) => level.crossed).map((level) => level.level),
  };
}

/**
 * The merchant view's ratios of the month, both environments (live first: the one the schemes see;
 * sandbox for a merchant still testing), each scheme's two ratios that have anything to count.
 */
export async function merchantRatios(ratios: Pick<DisputeRatioService, 'ratios'>, organizationId: string) {
  const environments: Environment[] = ['live', 'sandbox'];
  return Promise.all(
    environments.map(async (environment) => {
      const view = await ratios.ratios({ organizationId, environment });
      return {
        environment,
        month: view.month,
        rows: (view.schemes as SchemeRatios[])
          .flatMap((scheme) => [ratioRow(scheme, 'visa_style'), ratioRow(scheme, 'mastercard_style')])
          .filter((row) => row.count > 0 || row.sales > 0),
      };
    }),
  );
}
