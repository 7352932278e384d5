import { Type } from 'typebox';
import {
  CARD_SCHEMES,
  CATEGORIES,
  FUNDINGS,
  ISSUER_MAX_LENGTH,
  PREFIX_PATTERN,
  PROGRAMME_MAX_LENGTH,
  UNKNOWN,
} from './types.js';

/** The request and response schemas of the BIN table's operator routes (src/modules/operator/bins-api.ts). */

const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const BinRowSchema = Type.Object({
  prefix: Type.String({ pattern: PREFIX_PATTERN, description: 'The first 6 to 8 digits of the numbers.' }),
  scheme: Type.Enum([...CARD_SCHEMES]),
  country: Country,
  issuer: Nullable(Type.String({ maxLength: ISSUER_MAX_LENGTH, description: 'The issuing bank.' })),
  funding: Type.Enum([...FUNDINGS]),
  category: Type.Enum([...CATEGORIES], { description: 'Personal (`consumer`) or business cards.' }),
  programme: Nullable(
    Type.String({
      maxLength: PROGRAMME_MAX_LENGTH,
      description: 'The card programme (`Bonus`, `World`, `Maximum`, `Axess`, …).',
    }),
  ),
  updatedAt: Type.String({ format: 'date-time' }),
  updatedBy: Type.String({ description: '`staff:stf_…`, `cli`, or `migration` for the sandbox seed rows.' }),
});

export const BinInfoSchema = Type.Object({
  bin: Type.String({ pattern: '^[0-9]{0,8}$', description: 'The digits looked up (at most 8).' }),
  source: Type.Enum(['table', 'scheme_rules', 'none'], {
    description:
      '`table`: the row of `prefix`; `scheme_rules`: no row, the scheme by `credit-card-type` and the ' +
      'Troy ranges, the rest `unknown`; `none`: nothing known.',
  }),
  prefix: Nullable(Type.String({ pattern: PREFIX_PATTERN })),
  scheme: Type.Enum([...CARD_SCHEMES, UNKNOWN]),
  country: Type.Union([Country, Type.Literal(UNKNOWN)]),
  issuer: Nullable(Type.String()),
  funding: Type.Enum([...FUNDINGS, UNKNOWN]),
  category: Type.Enum([...CATEGORIES, UNKNOWN]),
  programme: Nullable(Type.String()),
});

export const BinImportSchema = Type.Object({
  rows: Type.Integer({ minimum: 1, description: 'The rows of the file.' }),
  inserted: Type.Integer({ minimum: 0, description: 'Rows of prefixes the table did not have.' }),
  updated: Type.Integer({ minimum: 0, description: 'Rows that changed a prefix the table had.' }),
  unchanged: Type.Integer({ minimum: 0, description: 'Rows the table already had as given.' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The SHA-256 of the file, as audited.' }),
});

export const BinListQuery = Type.Object(
  {
    prefix: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,8}$', description: 'Rows whose prefix begins with these digits.' }),
    ),
    country: Type.Optional(Country),
    scheme: Type.Optional(Type.Enum([...CARD_SCHEMES])),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'The `nextCursor` of the previous page, with the same filters.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const BinPrefixParams = Type.Object(
  { prefix: Type.String({ pattern: PREFIX_PATTERN }) },
  { additionalProperties: false },
);

export const BinLookupParams = Type.Object(
  {
    bin: Type.String({
      pattern: '^[0-9]{6,8}$',
      description: 'The first 6 to 8 digits of a card number (never the whole number).',
    }),
  },
  { additionalProperties: false },
);
