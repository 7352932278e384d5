import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { withoutOutboundDeadline } from '../../shared/request-budget.js';
import type { CarryReason } from '../../db/schema.js';
import type { RateUnavailableError } from '../payouts/rates.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import type { DayReport } from '../settlement/batch-types.js';
import { FROZEN_HOLD } from '../settlement/model.js';
import { addDays, parseBusinessDate, utcDateOf } from '../../shared/business-calendar.js';
import { SETTLEMENT_ERRORS } from '../settlement/errors.js';
import { actorOf } from './auth.js';
import {
  backTo,
  commandThenRedirect,
  consoleRoute,
  FormBody,
  freshRecordPage,
  noticeOf,
  ReasonField,
  recordForm,
  recordPage,
  refusalExtra,
  type ConsoleKit,
  type PageExtra,
} from './console-kit.js';
import { settlementValue } from './settlement-helpers.js';
import { ENVIRONMENTS, IdParamsSchema } from './schemas.js';

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

const CLOSURE_NOTICES: Record<string, string> = {
  declared: 'Closure declared: no batch runs on that date; the next business day takes its funds.',
  removed: 'Closure removed: the date is a business day again unless it is a weekend or a holiday.',
};

const ORGANIZATION_NOTICES: Record<string, string> = {
  schedule: 'Payout schedule saved.',
  reserve: 'Rolling reserve saved: it applies to batches from now on.',
};

type SettlementConsole = { kit: ConsoleKit; batches: SettlementBatchService };

/**
 * The operator's settlement as console pages at `/settlement…`: the batches by date and running a date,
 * the declared closures, and an organization's payout schedule, rolling reserve and statements' check.
 */
export async function operatorSettlementConsole(app: App, deps: SettlementConsole): Promise<void> {
  batchPages(app, deps);
  closurePages(app, deps);
  organizationPages(app, deps);
}

/** The batches page: the filtered list, its next page, and the run form for administrators. */
async function showBatches(
  { kit, batches }: SettlementConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  query: {
    filter: { [K in keyof BatchesFilter]?: BatchesFilter[K] | '' | undefined };
    cursor?: string | undefined;
  },
  extra: PageExtra = {},
) {
  // Always the same keys in the same order: the cursor is bound to the filter.
  const filter: BatchesFilter = {
    businessDate: query.filter.businessDate || undefined,
    status: query.filter.status || undefined,
    environment: query.filter.environment || undefined,
    organizationId: query.filter.organizationId?.trim() || undefined,
  };
  const list = settlementValue(
    await batches.operatorList(filter, { limit: 50, cursor: query.cursor || undefined }),
  );
  const params: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.push([name, value]);
  return kit.show(
    request,
    reply,
    'operator/settlement',
    {
      title: 'Settlement',
      outcomeInWords,
      filter,
      batches: list.data,
      nextUrl:
        list.nextCursor === null
          ? undefined
          : `/settlement?${new URLSearchParams([...params, ['cursor', list.nextCursor]]).toString()}`,
      statuses: BATCH_STATUSES,
      environments: ENVIRONMENTS,
    },
    extra,
  );
}

/** The batches, and running a date again. */
function batchPages(app: App, deps: SettlementConsole): void {
  const { batches } = deps;
  app.get('/settlement', consoleRoute('read', { querystring: BatchesQuery }), async (request, reply) => {
    const { cursor, notice, report, ...filter } = request.query;
    const businessDate = calendarDate(filter.businessDate);
    if (businessDate === null) {
      return showBatches(
        deps,
        request,
        reply,
        { filter: { ...filter, businessDate: undefined } },
        { error: 'The business date is not a calendar date (YYYY-MM-DD).', status: 400 },
      );
    }
    return showBatches(
      deps,
      request,
      reply,
      { filter: { ...filter, businessDate }, cursor },
      { notice: runNotice(notice, report, { businessDate }) },
    );
  });

  app.post(
    '/settlement/runs',
    consoleRoute('administer', { body: FormBody({ businessDate: Type.String({ maxLength: 40 }) }) }),
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
      return showBatches(deps, request, reply, { filter: {} }, refusalExtra(error));
    },
  );
}

async function showClosures(
  { kit, batches }: SettlementConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  range: { from?: string | undefined; to?: string | undefined },
  extra: PageExtra = {},
) {
  // The coming and the past year by default.
  const today = utcDateOf(new Date());
  const from = range.from || addDays(today, -366);
  const to = range.to || addDays(today, 366);
  return kit.show(
    request,
    reply,
    'operator/settlement-closures',
    {
      title: 'Settlement closures',
      from,
      to,
      closures: from <= to ? await batches.closures({ from, to }) : [],
      reasonMaxLength: CLOSURE_REASON_MAX_LENGTH,
    },
    extra,
  );
}

/** The closures, and the forms that declare and remove one (a refusal is shown on that page). */
function closurePages(app: App, deps: SettlementConsole): void {
  const { batches } = deps;
  app.get(
    '/settlement/closures',
    consoleRoute('read', {
      querystring: Type.Object(
        { from: ConsoleDate, to: ConsoleDate, notice: Type.Optional(Type.String({ maxLength: 40 })) },
        { additionalProperties: false },
      ),
    }),
    async (request, reply) => {
      const from = calendarDate(request.query.from);
      const to = calendarDate(request.query.to);
      if (from === null || to === null) {
        return showClosures(
          deps,
          request,
          reply,
          {},
          { error: 'A date of the range is not a calendar date (YYYY-MM-DD).', status: 400 },
        );
      }
      return showClosures(
        deps,
        request,
        reply,
        { from, to },
        { notice: noticeOf(CLOSURE_NOTICES, request.query.notice) },
      );
    },
  );

  const backToClosures = (request: FastifyRequest, reply: FastifyReply, notice: string) =>
    backTo(SETTLEMENT_ERRORS, '/settlement/closures', notice, (extra) =>
      showClosures(deps, request, reply, {}, extra),
    );

  app.post(
    '/settlement/closures',
    consoleRoute('administer', {
      body: FormBody({
        businessDate: Type.String({ maxLength: 40 }),
        ...ReasonField,
      }),
    }),
    async (request, reply) =>
      commandThenRedirect(reply, {
        run: () =>
          batches.declareClosure(request.body.businessDate.trim(), request.body.reason, actorOf(request)),
        ...backToClosures(request, reply, 'declared'),
      }),
  );

  app.post(
    '/settlement/closures/:date/remove',
    consoleRoute('administer', {
      params: Type.Object({ date: Type.String({ maxLength: 40 }) }, { additionalProperties: false }),
      body: FormBody({}),
    }),
    async (request, reply) =>
      commandThenRedirect(reply, {
        run: () => batches.removeClosure(request.params.date, actorOf(request)),
        ...backToClosures(request, reply, 'removed'),
      }),
  );
}

const organizationPage = ({ kit, batches }: SettlementConsole) =>
  freshRecordPage(kit, 'operator/settlement-organization', async (organizationId) => {
    const [schedule, reserve, verifications] = await Promise.all([
      batches.schedule(organizationId),
      batches.reserve(organizationId),
      Promise.all(
        ENVIRONMENTS.map((environment) => batches.verifyStatements({ organizationId, environment })),
      ),
    ]);
    return { title: `Settlement of ${organizationId}`, organizationId, schedule, reserve, verifications };
  });

/** An organization's settings, and their forms: the command, then back to its page; a refusal is shown there. */
function organizationPages(app: App, deps: SettlementConsole): void {
  const { batches } = deps;
  const showOrganization = organizationPage(deps);
  recordPage(app, '/settlement/organizations/:id', ORGANIZATION_NOTICES, showOrganization);

  const backToOrganization = (notice: string) => (request: FastifyRequest, reply: FastifyReply, id: string) =>
    backTo(
      SETTLEMENT_ERRORS,
      `/settlement/organizations/${encodeURIComponent(id)}`,
      notice,
      (extra, error) => {
        if (error.code === 'not_found') throw error;
        return showOrganization(request, reply, id, extra);
      },
    );

  recordForm(
    app,
    '/settlement/organizations/:id/schedule',
    { schedule: Type.Enum(['daily', 'manual']) },
    {
      run: (id, form, by) => batches.setSchedule(id, form.schedule, by),
      back: backToOrganization('schedule'),
    },
  );

  app.post(
    '/settlement/organizations/:id/reserve',
    consoleRoute('administer', {
      params: IdParamsSchema,
      body: FormBody({
        reserveBps: Type.Optional(Type.String({ maxLength: 40 })),
        days: Type.Optional(Type.String({ maxLength: 40 })),
      }),
    }),
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
      return commandThenRedirect(reply, {
        run: () => batches.setReserve(request.params.id, { reserveBps, days }, actorOf(request)),
        ...backToOrganization('reserve')(request, reply, request.params.id),
      });
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
