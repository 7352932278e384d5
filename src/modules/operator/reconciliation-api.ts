import { Type } from 'typebox';
import { ApiError, errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { ReconciliationService } from '../reconciliation/service.js';
import { apiRoute, pagedList, PageOf } from './api-kit.js';
import { actorOf } from './auth.js';
import { reconciliationValue } from './reconciliation-errors.js';
import { ENVIRONMENTS } from './schemas.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429, 502);
const DATE = Type.String({ format: 'date', description: 'A UTC calendar date, `YYYY-MM-DD`.' });
const Minor = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description });

const Side = (who: string) =>
  Type.Object(
    {
      payments: Type.Integer({ description: `Payments ${who} settled on the date.` }),
      refunds: Type.Integer({ description: `Refunds ${who} made on the date.` }),
      net: Minor('Payments less refunds, TRY minor units.'),
    },
    { description: `What ${who} says of the date.` },
  );

const RunSchema = Type.Object({
  id: Type.String({ pattern: '^rcn_' }),
  object: Type.Literal('reconciliation_run'),
  environment: Type.Enum([...ENVIRONMENTS]),
  reportDate: DATE,
  origin: Type.Enum(['schedule', 'operator'], { description: 'The daily job, or an operator’s run.' }),
  status: Type.Enum(['matched', 'differences'], {
    description:
      '`matched`: no difference but timing ones; `differences`: at least one other (raised as an alert).',
  }),
  acquirer: Side('the acquirer’s settlement report'),
  ledger: Side('the ledger (acquirer clearing)'),
  differenceCount: Type.Integer(),
  runBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

const DifferenceSchema = Type.Object({
  kind: Type.Enum(['missing_in_ledger', 'missing_at_acquirer', 'amount_mismatch', 'timing'], {
    description:
      '`missing_in_ledger`: the acquirer settled it, the ledger has no entry for it (a line the report ' +
      'repeats is settled twice: the repetition is one); `missing_at_acquirer`: ' +
      'the ledger booked it, the acquirer reported it neither on the date nor the day before or after; ' +
      '`amount_mismatch`: both, with different amounts; `timing`: both, on different dates (it nets out).',
  }),
  item: Type.Enum(['payment', 'refund', 'dispute_debit', 'dispute_reversal']),
  providerId: Type.Union([Type.String(), Type.Null()], {
    description: 'The acquirer’s payment or refund id.',
  }),
  gatewayId: Type.Union([Type.String(), Type.Null()], { description: 'Our charge (`ch_`) or refund id.' }),
  organizationId: Type.Union([Type.String(), Type.Null()]),
  acquirerAmount: Type.Union([Minor('TRY minor units.'), Type.Null()]),
  ledgerAmount: Type.Union([Minor('TRY minor units.'), Type.Null()]),
  acquirerAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ledgerAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const RunDetailSchema = Type.Intersect([
  RunSchema,
  Type.Object({ differences: Type.Array(DifferenceSchema) }),
]);

/**
 * The daily reconciliation as JSON (docs/settlement.md "Reconciliation"): each run of an environment and
 * UTC date with its differences, and running a date again (audited).
 */
export async function operatorReconciliationApi(
  app: App,
  deps: { reconciliation: ReconciliationService },
): Promise<void> {
  const { reconciliation } = deps;

  app.get(
    '/operator/v1/reconciliations',
    apiRoute(
      'read',
      PageOf(RunSchema),
      {
        description:
          'Reconciliation runs, newest first, filtered by environment or report date; cursor paged. The daily ' +
          'job (`RECONCILIATION_CRON`, default 04:00 UTC) reconciles the day before in each environment.',
        querystring: Type.Object(
          {
            environment: Type.Optional(Type.Enum([...ENVIRONMENTS])),
            reportDate: Type.Optional(DATE),
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
      },
      { errors },
    ),
    pagedList(async (filter, page) => reconciliationValue(await reconciliation.list(filter, page))),
  );

  app.get(
    '/operator/v1/reconciliations/:id',
    apiRoute(
      'read',
      RunDetailSchema,
      {
        description: 'A reconciliation run with every difference it found.',
        params: Type.Object(
          { id: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
      },
      { errors },
    ),
    async (request) => {
      const run = await reconciliation.retrieve(request.params.id);
      if (!run) throw new ApiError('not_found', 'No such reconciliation run.');
      return run;
    },
  );

  app.post(
    '/operator/v1/reconciliations',
    apiRoute(
      'administer',
      RunDetailSchema,
      {
        description:
          'Reconciles an environment’s UTC date now (one that is over): the acquirer’s settlement report against ' +
          'the ledger. Adds a run (earlier runs are kept as they were); differences other than timing raise ' +
          'an alert. 409 `invalid_state_transition` for a date not over (`not_over`) or an environment without ' +
          'an acquirer; 502 `provider_unavailable` when the report cannot be read or compared (not in TRY, a ' +
          'line without an id, a whole amount or a time). Audited.',
        body: Type.Object(
          { environment: Type.Enum([...ENVIRONMENTS]), reportDate: DATE },
          { additionalProperties: false },
        ),
      },
      { status: 201, errors },
    ),
    async (request, reply) => {
      const run = reconciliationValue(
        await reconciliation.run(request.body.environment, request.body.reportDate, {
          ...actorOf(request),
          origin: 'operator',
        }),
      );
      return reply.code(201).send(run);
    },
  );
}
