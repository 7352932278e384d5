import { Type } from 'typebox';
import { withoutOutboundDeadline } from '../../shared/request-budget.js';
import type { App } from '../../http/server.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import { SettlementBatchSchema } from '../settlement/schemas.js';
import { apiRoute, pagedList, PageOf, ListOf } from './api-kit.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './command-input.js';
import { settlementValue } from './settlement-helpers.js';

const DATE = Type.String({ format: 'date', description: 'A calendar date, `YYYY-MM-DD`.' });

const OperatorBatchSchema = Type.Intersect(
  [SettlementBatchSchema, Type.Object({ organizationId: Type.String() })],
  {
    description: 'A settlement batch as the operator sees it.',
  },
);

/** A number the run counts, and what it counts. */
const Count = (description: string) => Type.Integer({ description });

const DayReportSchema = Type.Object(
  {
    businessDate: DATE,
    skipped: Type.Boolean({ description: 'Not a business day: nothing ran.' }),
    owners: Count('Organizations and environments visited.'),
    paidOut: Count('Batches this run paid out.'),
    carried: Count('Batches this run carried (no payout; the funds stay available).'),
    held: Count(
      'Batches (of the date or an earlier one) waiting for a usable rate; the daily job retries them.',
    ),
    frozen: Count(
      'Batches held because their organization is frozen (`organization_frozen`); a later run pays them ' +
        'out once it is unfrozen.',
    ),
    unchanged: Count('Batches of the date an earlier run had already ended.'),
    failed: Count('Owners whose batch failed (logged); run the date again.'),
    chunked: Count('Of paidOut, the owners settled by a set-based chunk (ADR 0041).'),
    chunksFailed: Count(
      'Chunks rolled back and settled one owner at a time instead (logged at error level): 0 on a healthy run.',
    ),
  },
  { description: 'What one run of a business date did.' },
);

const ClosureSchema = Type.Object({
  businessDate: DATE,
  reason: Type.String(),
  declaredBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

/**
 * The operator's settlement as JSON (docs/settlement.md "Operator runbook"): batches by date with their
 * state, running a due, missed or held date again (exactly once still holds), declared closures, payout
 * schedules and rolling reserves. Every write is audited.
 */
export async function operatorSettlementApi(
  app: App,
  deps: { batches: SettlementBatchService },
): Promise<void> {
  batchApi(app, deps.batches);
  closureApi(app, deps.batches);
  organizationSettingsApi(app, deps.batches);
}

/** The batches, the statements' check, and running a date. */
function batchApi(app: App, batches: SettlementBatchService): void {
  app.get(
    '/operator/v1/settlement/batches',
    apiRoute('read', PageOf(OperatorBatchSchema), {
      description:
        'Every organization’s settlement batches, newest business date first, filtered by organization, ' +
        'environment, status or business date; cursor paged.',
      querystring: Type.Object(
        {
          organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          environment: Type.Optional(Type.Enum(['sandbox', 'live'])),
          status: Type.Optional(Type.Enum(['released', 'held', 'paid_out', 'carried'])),
          businessDate: Type.Optional(DATE),
          limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
          cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        },
        { additionalProperties: false },
      ),
    }),
    pagedList(async (filter, page) => settlementValue(await batches.operatorList(filter, page))),
  );

  app.get(
    '/operator/v1/settlement/statements/verify',
    apiRoute(
      'read',
      Type.Object({
        organizationId: Type.String(),
        environment: Type.Enum(['sandbox', 'live']),
        valid: Type.Boolean(),
        checked: Type.Integer(),
        problems: Type.Array(
          Type.Object({
            batchId: Type.String(),
            sequence: Type.Integer(),
            problem: Type.Enum(['content_changed', 'chain_broken', 'sequence_gap']),
          }),
        ),
      }),
      {
        description:
          'Recomputes every statement of an organization’s environment from the stored batches and lines and ' +
          'checks each against the hash recorded when its batch ended and against the previous link: ' +
          '`valid: false` lists each statement whose content changed and each broken link.',
        querystring: Type.Object(
          {
            organizationId: Type.String({ minLength: 1, maxLength: 64 }),
            environment: Type.Enum(['sandbox', 'live']),
          },
          { additionalProperties: false },
        ),
      },
    ),
    async (request) =>
      batches.verifyStatements({
        organizationId: request.query.organizationId,
        environment: request.query.environment,
      }),
  );

  app.post(
    '/operator/v1/settlement/runs',
    apiRoute('administer', DayReportSchema, {
      description:
        'Runs the settlement batch of a business date now, as the 03:00 UTC job does: for a date the job ' +
        'missed, or to pay out batches held for want of a rate once one is back. Exactly once still holds: ' +
        'a batch that exists is resumed, never repeated. 409 `invalid_state_transition` for a date that ' +
        'is not a business day (`details.reason: not_a_business_day`) or whose cutoff has not passed ' +
        '(`not_due`). Audited.',
      body: Type.Object(
        { businessDate: Type.Optional(DATE) },
        { additionalProperties: false, description: 'Without `businessDate`: today (UTC).' },
      ),
    }),
    async (request) => {
      const businessDate = request.body.businessDate ?? new Date().toISOString().slice(0, 10);
      // The 03:00 job's run, with the job's timeouts: not bounded by this request's budget (ADR 0064).
      return settlementValue(
        await withoutOutboundDeadline(() => batches.runDate(businessDate, actorOf(request))),
      );
    },
  );
}

/** Declared closures. */
function closureApi(app: App, batches: SettlementBatchService): void {
  app.get(
    '/operator/v1/settlement/closures',
    apiRoute('read', ListOf(ClosureSchema), {
      description: 'Declared closures (days without a batch besides weekends and Turkish public holidays).',
      querystring: Type.Object({ from: DATE, to: DATE }, { additionalProperties: false }),
    }),
    async (request) => ({ data: await batches.closures({ from: request.query.from, to: request.query.to }) }),
  );

  app.post(
    '/operator/v1/settlement/closures',
    apiRoute(
      'administer',
      ClosureSchema,
      {
        description:
          'Declares a closure: no batch runs on that date; the next business day takes its funds. 409 ' +
          '`invalid_state_transition` when the date is closed already. Audited.',
        body: Type.Object(
          { businessDate: DATE, reason: Type.String({ minLength: 1, maxLength: REASON_MAX_LENGTH }) },
          { additionalProperties: false },
        ),
      },
      { status: 201 },
    ),
    async (request, reply) => {
      const closure = settlementValue(
        await batches.declareClosure(request.body.businessDate, request.body.reason, actorOf(request)),
      );
      return reply.code(201).send(closure);
    },
  );

  app.delete(
    '/operator/v1/settlement/closures/:businessDate',
    apiRoute('administer', ClosureSchema, {
      description: 'Removes a declared closure. Audited.',
      params: Type.Object({ businessDate: DATE }, { additionalProperties: false }),
    }),
    async (request) =>
      settlementValue(await batches.removeClosure(request.params.businessDate, actorOf(request))),
  );
}

/** An organization's rolling reserve and payout schedule. */
function organizationSettingsApi(app: App, batches: SettlementBatchService): void {
  app.put(
    '/operator/v1/organizations/:id/reserve',
    apiRoute(
      'administer',
      Type.Object({
        organizationId: Type.String(),
        reserveBps: Type.Integer(),
        days: Type.Integer(),
      }),
      {
        description:
          'The organization’s rolling reserve: `reserveBps` basis points (0 to 10000) of each batch’s net are ' +
          'held for `days` days (0 to 365), then released to `available` by the first batch on or after that ' +
          'date. Applies to batches from now on; 0 turns it off. Audited.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object(
          {
            reserveBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
            days: Type.Integer({ minimum: 0, maximum: 365 }),
          },
          { additionalProperties: false },
        ),
      },
    ),
    async (request) => ({
      organizationId: request.params.id,
      ...settlementValue(await batches.setReserve(request.params.id, request.body, actorOf(request))),
    }),
  );

  app.put(
    '/operator/v1/organizations/:id/payout-schedule',
    apiRoute(
      'administer',
      Type.Object({ organizationId: Type.String(), schedule: Type.Enum(['daily', 'manual']) }),
      {
        description:
          'Whether the daily batch pays the organization out automatically (`daily`, the default) or it pays ' +
          'out by hand (`manual`: batches release the funds to `available` and are carried). Audited.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object({ schedule: Type.Enum(['daily', 'manual']) }, { additionalProperties: false }),
      },
    ),
    async (request) => {
      const schedule = settlementValue(
        await batches.setSchedule(request.params.id, request.body.schedule, actorOf(request)),
      );
      return { organizationId: request.params.id, schedule };
    },
  );
}
