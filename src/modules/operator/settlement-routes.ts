import { withoutOutboundDeadline } from '../../shared/request-budget.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import type { Renderer } from '../../web/render.js';
import type { CarryReason } from '../../db/schema.js';
import type { RateUnavailableError } from '../payouts/rates.js';
import {
  FROZEN_HOLD,
  type DayReport,
  type SettlementBatches,
  type SettlementCommandError,
} from '../settlement/batch.js';
import { addDays, parseBusinessDate, utcDateOf } from '../settlement/calendar.js';
import { SETTLEMENT_ERRORS } from '../settlement/errors.js';
import { SettlementBatchSchema } from '../settlement/schemas.js';
import type { CursorError } from '../../http/cursor-errors.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './commands.js';
import { IdParamsSchema } from './schemas.js';
import { consolePage, refusalText } from './console-page.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429);
const ENVIRONMENTS = ['sandbox', 'live'] as const;
const BATCH_STATUSES = ['released', 'held', 'paid_out', 'carried'] as const;
/** The closure reason's limit of the settlement commands (`declareClosure`). */
const CLOSURE_REASON_MAX_LENGTH = 500;

/** Why a batch was carried, in words on the console's settlement page (the code stays in the API). */
const CARRY_WORDS = {
  no_default_wallet: 'carried: the organization has no default wallet; the funds stay available.',
  below_minimum: 'carried: the available balance is below the network minimum; the funds stay available.',
  manual_schedule: 'carried: the organization pays out by hand; the funds stay available.',
  nothing_available: 'carried: nothing was available to pay out.',
} satisfies Record<CarryReason, string>;
/** Why a batch is held: a frozen organization, or no usable rate (`rate_unavailable:<reason>`), retried. */
const HOLD_WORDS = {
  [FROZEN_HOLD]:
    'held: the organization is frozen; the funds stay available and are paid out by the first run after it is unfrozen.',
  'rate_unavailable:missing': 'held: no TRY to USDT rate is available; the next run tries again.',
  'rate_unavailable:stale': 'held: the TRY to USDT rate is too old; the next run tries again.',
  'rate_unavailable:unreachable': 'held: the rate source could not be reached; the next run tries again.',
  'rate_unavailable:invalid': 'held: the rate source answered an unusable rate; the next run tries again.',
  'rate_unavailable:not_configured': 'held: no rate source is configured for this environment.',
} satisfies Record<
  `rate_unavailable:${RateUnavailableError['reason'] | 'not_configured'}` | typeof FROZEN_HOLD,
  string
>;
const OUTCOME_WORDS = new Map<string, string>([
  ...Object.entries(CARRY_WORDS),
  ...Object.entries(HOLD_WORDS),
]);
/** A carried or held batch's reason in words; a reason without words shows as its code. */
const outcomeInWords = (reason: string, outcome: 'carried' | 'held'): string =>
  OUTCOME_WORDS.get(reason) ?? `${outcome}: ${reason}`;
const DATE = Type.String({ format: 'date', description: 'A calendar date, `YYYY-MM-DD`.' });

const OperatorBatchSchema = Type.Intersect(
  [SettlementBatchSchema, Type.Object({ organizationId: Type.String() })],
  {
    description: 'A settlement batch as the operator sees it.',
  },
);

const DayReportSchema = Type.Object(
  {
    businessDate: DATE,
    skipped: Type.Boolean({ description: 'Not a business day: nothing ran.' }),
    owners: Type.Integer({ description: 'Organizations and environments visited.' }),
    paidOut: Type.Integer({ description: 'Batches this run paid out.' }),
    carried: Type.Integer({ description: 'Batches this run carried (no payout; the funds stay available).' }),
    held: Type.Integer({
      description:
        'Batches (of the date or an earlier one) waiting for a usable rate; the daily job retries them.',
    }),
    frozen: Type.Integer({
      description:
        'Batches held because their organization is frozen (`organization_frozen`); a later run pays them ' +
        'out once it is unfrozen.',
    }),
    unchanged: Type.Integer({ description: 'Batches of the date an earlier run had already ended.' }),
    failed: Type.Integer({ description: 'Owners whose batch failed (logged); run the date again.' }),
    chunked: Type.Integer({ description: 'Of paidOut, the owners settled by a set-based chunk (ADR 0041).' }),
    chunksFailed: Type.Integer({
      description:
        'Chunks rolled back and settled one owner at a time instead (logged at error level): 0 on a healthy run.',
    }),
  },
  { description: 'What one run of a business date did.' },
);

const ClosureSchema = Type.Object({
  businessDate: DATE,
  reason: Type.String(),
  declaredBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

function valueOf<T>(result: Result<T, SettlementCommandError | CursorError>): T {
  if (result.ok) return result.value;
  throw toApiError(SETTLEMENT_ERRORS, result.error);
}

/**
 * The operator's settlement (issue 14 items 1, 6 and 8; docs/settlement.md "Operator runbook"): batches by
 * date with their state, running a due, missed or held date again (exactly once still holds), declared
 * closures, payout schedules and rolling reserves. JSON under `/operator/v1/…`, console pages at
 * `/settlement…`. Every write is audited.
 */
export async function operatorSettlementRoutes(
  app: App,
  deps: { batches: SettlementBatches; renderer: Renderer },
): Promise<void> {
  const { batches } = deps;

  app.get(
    '/operator/v1/settlement/batches',
    {
      schema: {
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
        response: {
          200: Type.Object({
            data: Type.Array(OperatorBatchSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      return valueOf(await batches.operatorList(filter, { limit, cursor }));
    },
  );

  app.get(
    '/operator/v1/settlement/statements/verify',
    {
      schema: {
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
        response: {
          200: Type.Object({
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
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) =>
      batches.verifyStatements({
        organizationId: request.query.organizationId,
        environment: request.query.environment,
      }),
  );

  app.post(
    '/operator/v1/settlement/runs',
    {
      schema: {
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
        response: { 200: DayReportSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) => {
      const businessDate = request.body.businessDate ?? new Date().toISOString().slice(0, 10);
      // The 03:00 job's run, with the job's timeouts: not bounded by this request's budget (ADR 0064).
      return valueOf(await withoutOutboundDeadline(() => batches.runDate(businessDate, actorOf(request))));
    },
  );

  app.get(
    '/operator/v1/settlement/closures',
    {
      schema: {
        description: 'Declared closures (days without a batch besides weekends and Turkish public holidays).',
        querystring: Type.Object({ from: DATE, to: DATE }, { additionalProperties: false }),
        response: { 200: Type.Object({ data: Type.Array(ClosureSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => ({ data: await batches.closures({ from: request.query.from, to: request.query.to }) }),
  );

  app.post(
    '/operator/v1/settlement/closures',
    {
      schema: {
        description:
          'Declares a closure: no batch runs on that date; the next business day takes its funds. 409 ' +
          '`invalid_state_transition` when the date is closed already. Audited.',
        body: Type.Object(
          { businessDate: DATE, reason: Type.String({ minLength: 1, maxLength: REASON_MAX_LENGTH }) },
          { additionalProperties: false },
        ),
        response: { 201: ClosureSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const closure = valueOf(
        await batches.declareClosure(request.body.businessDate, request.body.reason, actorOf(request)),
      );
      return reply.code(201).send(closure);
    },
  );

  app.delete(
    '/operator/v1/settlement/closures/:businessDate',
    {
      schema: {
        description: 'Removes a declared closure. Audited.',
        params: Type.Object({ businessDate: DATE }, { additionalProperties: false }),
        response: { 200: ClosureSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) => valueOf(await batches.removeClosure(request.params.businessDate, actorOf(request))),
  );

  app.put(
    '/operator/v1/organizations/:id/reserve',
    {
      schema: {
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
        response: {
          200: Type.Object({
            organizationId: Type.String(),
            reserveBps: Type.Integer(),
            days: Type.Integer(),
          }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request) => ({
      organizationId: request.params.id,
      ...valueOf(await batches.setReserve(request.params.id, request.body, actorOf(request))),
    }),
  );

  app.put(
    '/operator/v1/organizations/:id/payout-schedule',
    {
      schema: {
        description:
          'Whether the daily batch pays the organization out automatically (`daily`, the default) or it pays ' +
          'out by hand (`manual`: batches release the funds to `available` and are carried). Audited.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object({ schedule: Type.Enum(['daily', 'manual']) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ organizationId: Type.String(), schedule: Type.Enum(['daily', 'manual']) }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request) => {
      const schedule = valueOf(
        await batches.setSchedule(request.params.id, request.body.schedule, actorOf(request)),
      );
      return { organizationId: request.params.id, schedule };
    },
  );

  // The console.
  const page = consolePage(deps.renderer);

  const FormBody = <T extends Record<string, TSchema>>(fields: T) =>
    Type.Object(
      { _csrf: Type.Optional(Type.String({ maxLength: 200 })), ...fields },
      { additionalProperties: false },
    );

  // Checked in the handlers (`calendarDate`), so that a bad date gets the page with its error.
  const ConsoleDate = Type.Optional(Type.String({ maxLength: 40 }));

  const BatchesQuery = Type.Object(
    {
      businessDate: ConsoleDate,
      status: Type.Optional(Type.Union([Type.Enum([...BATCH_STATUSES]), Type.Literal('')])),
      environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])),
      organizationId: Type.Optional(Type.String({ maxLength: 64 })),
      cursor: Type.Optional(Type.String({ maxLength: 500 })),
      notice: Type.Optional(Type.String({ maxLength: 40 })),
      report: Type.Optional(Type.String({ maxLength: 100 })),
    },
    { additionalProperties: false },
  );
  type BatchesFilter = {
    businessDate?: string | undefined;
    status?: (typeof BATCH_STATUSES)[number] | undefined;
    environment?: (typeof ENVIRONMENTS)[number] | undefined;
    organizationId?: string | undefined;
  };

  /** The batches page: the filtered list, its next page, and the run form for administrators. */
  const showBatches = async (
    request: FastifyRequest,
    reply: FastifyReply,
    query: {
      filter: { [K in keyof BatchesFilter]?: BatchesFilter[K] | '' | undefined };
      cursor?: string | undefined;
    },
    extra: { notice?: string | undefined; error?: string | undefined; status?: number } = {},
  ) => {
    // Always the same keys in the same order: the cursor is bound to the filter.
    const filter: BatchesFilter = {
      businessDate: query.filter.businessDate || undefined,
      status: query.filter.status || undefined,
      environment: query.filter.environment || undefined,
      organizationId: query.filter.organizationId?.trim() || undefined,
    };
    const list = valueOf(
      await batches.operatorList(filter, { limit: 50, cursor: query.cursor || undefined }),
    );
    const params: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.push([name, value]);
    if (extra.status) reply.code(extra.status);
    return page(request, reply, 'operator/settlement', {
      title: 'Settlement',
      outcomeInWords,
      filter,
      batches: list.data,
      nextUrl:
        list.nextCursor === null
          ? undefined
          : `/settlement?${new URLSearchParams([...params, ['cursor', list.nextCursor]]).toString()}`,
      notice: extra.notice,
      error: extra.error,
      statuses: BATCH_STATUSES,
      environments: ENVIRONMENTS,
    });
  };

  app.get(
    '/settlement',
    { schema: { querystring: BatchesQuery, hide: true }, config: { operator: 'read' } },
    async (request, reply) => {
      const { cursor, notice, report, ...filter } = request.query;
      const businessDate = calendarDate(filter.businessDate);
      if (businessDate === null) {
        return showBatches(
          request,
          reply,
          { filter: { ...filter, businessDate: undefined } },
          { error: 'The business date is not a calendar date (YYYY-MM-DD).', status: 400 },
        );
      }
      return showBatches(
        request,
        reply,
        { filter: { ...filter, businessDate }, cursor },
        { notice: runNotice(notice, report, { businessDate }) },
      );
    },
  );

  app.post(
    '/settlement/runs',
    {
      schema: { body: FormBody({ businessDate: Type.String({ maxLength: 40 }) }), hide: true },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      // The 03:00 job's run, with the job's timeouts: not bounded by this request's budget (ADR 0064).
      const result = await withoutOutboundDeadline(() =>
        batches.runDate(request.body.businessDate.trim(), actorOf(request)),
      );
      if (result.ok) {
        const report = result.value;
        const params = new URLSearchParams({
          businessDate: report.businessDate,
          notice: 'ran',
          report: reportCode(report),
        });
        return reply.redirect(`/settlement?${params.toString()}`, 303);
      }
      const error = toApiError(SETTLEMENT_ERRORS, result.error);
      return showBatches(
        request,
        reply,
        { filter: {} },
        { error: refusalText(error), status: error.statusCode },
      );
    },
  );

  const CLOSURE_NOTICES: Record<string, string> = {
    declared: 'Closure declared: no batch runs on that date; the next business day takes its funds.',
    removed: 'Closure removed: the date is a business day again unless it is a weekend or a holiday.',
  };

  const showClosures = async (
    request: FastifyRequest,
    reply: FastifyReply,
    range: { from?: string | undefined; to?: string | undefined },
    extra: { notice?: string | undefined; error?: string | undefined; status?: number } = {},
  ) => {
    // The coming and the past year by default.
    const today = utcDateOf(new Date());
    const from = range.from || addDays(today, -366);
    const to = range.to || addDays(today, 366);
    if (extra.status) reply.code(extra.status);
    return page(request, reply, 'operator/settlement-closures', {
      title: 'Settlement closures',
      from,
      to,
      closures: from <= to ? await batches.closures({ from, to }) : [],
      reasonMaxLength: CLOSURE_REASON_MAX_LENGTH,
      notice: extra.notice,
      error: extra.error,
    });
  };

  app.get(
    '/settlement/closures',
    {
      schema: {
        querystring: Type.Object(
          { from: ConsoleDate, to: ConsoleDate, notice: Type.Optional(Type.String({ maxLength: 40 })) },
          { additionalProperties: false },
        ),
        hide: true,
      },
      config: { operator: 'read' },
    },
    async (request, reply) => {
      const from = calendarDate(request.query.from);
      const to = calendarDate(request.query.to);
      if (from === null || to === null) {
        return showClosures(
          request,
          reply,
          {},
          { error: 'A date of the range is not a calendar date (YYYY-MM-DD).', status: 400 },
        );
      }
      return showClosures(
        request,
        reply,
        { from, to },
        { notice: request.query.notice === undefined ? undefined : CLOSURE_NOTICES[request.query.notice] },
      );
    },
  );

  /** A closure form: the command, then back to the closures; a refusal is shown on that page. */
  const closureCommand = async (
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<Result<unknown, SettlementCommandError>>,
    notice: string,
  ) => {
    const result = await run();
    if (result.ok) return reply.redirect(`/settlement/closures?notice=${notice}`, 303);
    const error = toApiError(SETTLEMENT_ERRORS, result.error);
    return showClosures(request, reply, {}, { error: refusalText(error), status: error.statusCode });
  };

  app.post(
    '/settlement/closures',
    {
      schema: {
        body: FormBody({
          businessDate: Type.String({ maxLength: 40 }),
          reason: Type.String({ maxLength: REASON_MAX_LENGTH }),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      closureCommand(
        request,
        reply,
        () => batches.declareClosure(request.body.businessDate.trim(), request.body.reason, actorOf(request)),
        'declared',
      ),
  );

  app.post(
    '/settlement/closures/:date/remove',
    {
      schema: {
        params: Type.Object({ date: Type.String({ maxLength: 40 }) }, { additionalProperties: false }),
        body: FormBody({}),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      closureCommand(
        request,
        reply,
        () => batches.removeClosure(request.params.date, actorOf(request)),
        'removed',
      ),
  );

  const ORGANIZATION_NOTICES: Record<string, string> = {
    schedule: 'Payout schedule saved.',
    reserve: 'Rolling reserve saved: it applies to batches from now on.',
  };

  const showOrganization = async (
    request: FastifyRequest,
    reply: FastifyReply,
    organizationId: string,
    extra: { notice?: string | undefined; error?: string | undefined; status?: number } = {},
  ) => {
    const [schedule, reserve, verifications] = await Promise.all([
      batches.schedule(organizationId),
      batches.reserve(organizationId),
      Promise.all(
        ENVIRONMENTS.map((environment) => batches.verifyStatements({ organizationId, environment })),
      ),
    ]);
    if (extra.status) reply.code(extra.status);
    return page(request, reply, 'operator/settlement-organization', {
      title: `Settlement of ${organizationId}`,
      organizationId,
      schedule,
      reserve,
      verifications,
      notice: extra.notice,
      error: extra.error,
    });
  };

  app.get(
    '/settlement/organizations/:id',
    {
      schema: {
        params: IdParamsSchema,
        querystring: Type.Object(
          { notice: Type.Optional(Type.String({ maxLength: 40 })) },
          { additionalProperties: false },
        ),
        hide: true,
      },
      config: { operator: 'read' },
    },
    async (request, reply) =>
      showOrganization(request, reply, request.params.id, {
        notice: request.query.notice === undefined ? undefined : ORGANIZATION_NOTICES[request.query.notice],
      }),
  );

  /** An organization's settings form: the command, then back to its page; a refusal is shown there. */
  const organizationCommand = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    run: () => Promise<Result<unknown, SettlementCommandError>>,
    notice: string,
  ) => {
    const result = await run();
    if (result.ok)
      return reply.redirect(`/settlement/organizations/${encodeURIComponent(id)}?notice=${notice}`, 303);
    const error = toApiError(SETTLEMENT_ERRORS, result.error);
    if (error.code === 'not_found') throw error;
    return showOrganization(request, reply, id, { error: refusalText(error), status: error.statusCode });
  };

  app.post(
    '/settlement/organizations/:id/schedule',
    {
      schema: {
        params: IdParamsSchema,
        body: FormBody({ schedule: Type.Enum(['daily', 'manual']) }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      organizationCommand(
        request,
        reply,
        request.params.id,
        () => batches.setSchedule(request.params.id, request.body.schedule, actorOf(request)),
        'schedule',
      ),
  );

  app.post(
    '/settlement/organizations/:id/reserve',
    {
      schema: {
        params: IdParamsSchema,
        body: FormBody({
          reserveBps: Type.Optional(Type.String({ maxLength: 40 })),
          days: Type.Optional(Type.String({ maxLength: 40 })),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const reserveBps = wholeNumber(request.body.reserveBps, 10_000);
      const days = wholeNumber(request.body.days, 365);
      if (reserveBps === undefined || days === undefined) {
        return showOrganization(request, reply, request.params.id, {
          error:
            'The reserve is a whole number of basis points from 0 to 10000, held for a whole number of days ' +
            'from 0 to 365.',
          status: 400,
        });
      }
      return organizationCommand(
        request,
        reply,
        request.params.id,
        () => batches.setReserve(request.params.id, { reserveBps, days }, actorOf(request)),
        'reserve',
      );
    },
  );
}

/** A `YYYY-MM-DD` calendar date, undefined when empty, null when not a date. */
function calendarDate(text: string | undefined): string | undefined | null {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return undefined;
  try {
    parseBusinessDate(trimmed);
    return trimmed;
  } catch {
    return null;
  }
}

/** A whole number from 0 to `max` written in decimal digits, or undefined. */
function wholeNumber(text: string | undefined, max: number): number | undefined {
  const trimmed = (text ?? '').trim();
  if (!/^[0-9]{1,6}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return value <= max ? value : undefined;
}

/** A refusal's message with its validation issues, as the console shows it. */
/** The run's counts in the redirect after it (`/settlement?notice=ran&report=…`). */
const REPORT_FIELDS = ['owners', 'paidOut', 'carried', 'held', 'unchanged', 'failed'] as const;

function reportCode(report: DayReport): string {
  return REPORT_FIELDS.map((field) => String(report[field])).join('-');
}

/** The notice of a run, from the counts in the URL; nothing for anything else. */
function runNotice(
  notice: string | undefined,
  report: string | undefined,
  filter: { businessDate?: string | undefined },
): string | undefined {
  if (notice !== 'ran' || report === undefined || !filter.businessDate) return undefined;
  if (!/^[0-9]{1,9}(-[0-9]{1,9}){5}$/.test(report)) return undefined;
  const [owners, paidOut, carried, held, unchanged, failed] = report.split('-');
  return (
    `Ran ${filter.businessDate}. Owners: ${owners}, paid out: ${paidOut}, carried: ${carried}, ` +
    `held: ${held}, unchanged: ${unchanged}, failed: ${failed}.`
  );
}
