import { Type, type Static } from 'typebox';
import { StrictObject, Timestamp } from '../../../http/schemas.js';
import { RATIOS, SCHEMES } from './levels.js';

/** The schemas of the ratio routes (docs/dispute-ratios.md), merchant and operator. */

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Percent = (description: string) =>
  Type.Union([Type.String({ pattern: '^[0-9]+\\.[0-9]{4}$' }), Type.Null()], {
    description: `${description} A percentage as a decimal string with four places (exact, rounded half-up); null without sales.`,
  });
const MONTH = Type.String({
  pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$',
  description: 'A calendar month (UTC), `YYYY-MM`.',
});

const VisaStyleSchema = Type.Object({
  fraudWarnings: Count('Early fraud warnings reported in the month.'),
  disputes: Count(
    'Chargebacks of the month (a dispute counts once per row, an inquiry only once it escalates, in its escalation month).',
  ),
  fraudWarningsAlsoDisputed: Count(
    'Fraud warnings of the month whose charge has a chargeback counted in the month or before.',
  ),
  counted: Count(
    'What the ratio counts: fraud warnings and disputes, less `fraudWarningsAlsoDisputed` when a charge with both counts once (`countFraudAndDisputeOnce`).',
  ),
  sales: Count('Settled card-not-present sales of the month (succeeded card charges, by success time).'),
  percent: Percent('`counted` over `sales`.'),
});

const MastercardStyleSchema = Type.Object({
  chargebacks: Count('Chargebacks of the month.'),
  previousMonthSales: Count('Card sales transactions of the previous month.'),
  percent: Percent('`chargebacks` over `previousMonthSales`.'),
});

const ProjectedSchema = Type.Object(
  {
    count: Count('The count projected to the month end.'),
    sales: Count(
      'The sales projected to the month end (the previous month’s, unchanged, for the Mastercard-style ratio).',
    ),
    percent: Percent('The projected ratio.'),
  },
  {
    description:
      'Linear by elapsed time: each count of the month so far × the month’s length ÷ the time elapsed since it began, rounded half-up.',
  },
);

const LevelStatusSchema = Type.Object({
  level: Type.String({ description: 'The programme level (`watch`, `early_warning`, `excessive`, ...).' }),
  thresholdPercent: Type.String({ description: 'The level’s ratio, a percentage.' }),
  minimumCount: Count('The count the level needs besides the ratio.'),
  crossed: Type.Boolean({ description: 'The month so far reaches both the ratio and the count.' }),
  projectedCrossed: Type.Boolean({ description: 'The projection reaches both.' }),
  proximityPercent: Type.String({
    description:
      'How far along the month so far is: the lesser of the ratio’s share of the threshold and the count’s share of the minimum, at most 100.00.',
  }),
});

const current = <T extends ReturnType<typeof Type.Object>>(figure: T) =>
  Type.Object({ ...figure.properties, projected: ProjectedSchema, levels: Type.Array(LevelStatusSchema) });

export const SchemeRatiosSchema = Type.Object({
  scheme: Type.Enum([...SCHEMES], { description: 'The card scheme (the charge’s card brand).' }),
  visaStyle: current(VisaStyleSchema),
  mastercardStyle: current(MastercardStyleSchema),
  history: Type.Array(
    Type.Object({ month: MONTH, visaStyle: VisaStyleSchema, mastercardStyle: MastercardStyleSchema }),
    { description: 'The six complete months before this one, oldest first.' },
  ),
});

export const DisputeRatiosSchema = Type.Object({
  object: Type.Literal('dispute_ratios'),
  month: MONTH,
  asOf: Timestamp('When the figures were counted.'),
  countFraudAndDisputeOnce: Type.Boolean({
    description:
      'Whether a charge with both a fraud warning and a dispute counts once in the Visa-style ratio.',
  }),
  schemes: Type.Array(SchemeRatiosSchema),
});
export type DisputeRatiosView = Static<typeof DisputeRatiosSchema>;

export const OrganizationRatiosQuerySchema = StrictObject({
  environment: Type.Optional(Type.Enum(['sandbox', 'live'], { description: 'Default `live`.' })),
});

export const WatchlistQuerySchema = StrictObject({
  environment: Type.Optional(Type.Enum(['sandbox', 'live'], { description: 'Default: both.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});

export const WatchlistSchema = Type.Object({
  month: MONTH,
  asOf: Timestamp('When the figures were counted.'),
  data: Type.Array(
    Type.Object({
      organizationId: Type.String(),
      environment: Type.Enum(['sandbox', 'live']),
      proximityPercent: Type.String({
        description: 'The highest proximity of any of its levels (100.00: crossed).',
      }),
      scheme: Type.Enum([...SCHEMES]),
      ratio: Type.Enum([...RATIOS]),
      level: Type.String({ description: 'The level it is closest to (or the highest it crossed).' }),
      crossed: Type.Array(Type.String(), {
        description: '`scheme:ratio:level` of every level crossed this month.',
      }),
      percent: Percent('That ratio this month so far.'),
      count: Count('That ratio’s count this month so far.'),
      projectedPercent: Percent('That ratio projected to the month end.'),
    }),
    { description: 'Organizations with card activity this month, closest to a threshold first.' },
  ),
});

const LevelSchema = StrictObject({
  scheme: Type.Enum([...SCHEMES]),
  ratio: Type.Enum([...RATIOS]),
  level: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }),
  thresholdPercent: Type.String({
    pattern: '^[0-9]{1,3}(\\.[0-9]{1,4})?$',
    description: 'A percentage above 0 and at most 100, with at most four decimals (`"1.5"`).',
  }),
  minimumCount: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
  fromMonth: Type.Union([MONTH, Type.Null()], {
    description: 'The first month it applies to; null: always.',
  }),
  untilMonth: Type.Union([MONTH, Type.Null()], { description: 'The last month it applies to; null: on.' }),
});

export const RatioSettingsSchema = Type.Object({
  object: Type.Literal('dispute_ratio_settings'),
  countFraudAndDisputeOnce: Type.Boolean(),
  levels: Type.Array(LevelSchema),
  updatedBy: Type.String(),
  updatedAt: Timestamp('When they were last changed.'),
});
export type RatioSettingsView = Static<typeof RatioSettingsSchema>;

export const RatioSettingsBodySchema = StrictObject({
  countFraudAndDisputeOnce: Type.Boolean({
    description:
      'A charge with both a fraud warning and a dispute counts once in the Visa-style ratio (default true).',
  }),
  levels: Type.Array(LevelSchema, { maxItems: 100, description: 'Every level, replacing the current ones.' }),
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; audited.' }),
});
export type RatioSettingsBody = Static<typeof RatioSettingsBodySchema>;
