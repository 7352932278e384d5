import type { Environment } from '../../db/schema.js';
import { containsCardNumber } from '../../shared/card-numbers.js';
import type { App } from '../../http/server.js';
import type { Kdb } from '../../db/database.js';
import { DAY, type Clock } from '../../shared/clock.js';
import type { AuditLog, AuditEntryView } from '../audit/service.js';
import { formatAmount } from '../checkout/format.js';
import type { DailyChargeActivity } from '../charges/activity.js';
import type { ChargeService, OperatorChargeMatch } from '../charges/service.js';
import type { Balance } from '../ledger/model.js';
import type { BrandingService } from '../organizations/branding.js';
import type { PayoutService } from '../payouts/service.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import type { EndpointHealth } from '../webhooks/endpoint-types.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import { actorOf } from './auth.js';
import type { ConsoleKit } from './console-kit.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import { merchantRatios } from './dispute-ratios-console.js';
import type { OperatorDisputes } from './disputes-api.js';
import { merchantDisputes } from './disputes-console.js';
import type { Owner } from '../../shared/owner.js';

/**
 * What the operator console's merchant view reads of the other modules, each through
 * its service, and the cross-merchant payment search.
 */
export interface MerchantViewDeps {
  clock: Clock;
  charges: Pick<ChargeService, 'searchAcrossOrganizations'>;
  /** The owner's created charges per UTC day and method (`dailyChargeActivity`, charges/activity.ts). */
  chargeActivity: (owner: Owner, range: { since: Date; until: Date }) => Promise<DailyChargeActivity[]>;
  ledger: { balance(owner: { organizationId: string; environment: Environment }): Promise<Balance[]> };
  settlement: Pick<SettlementBatchService, 'list'>;
  payouts: Pick<PayoutService, 'list'>;
  webhooks: Pick<WebhookEndpointService, 'healthOf'>;
  branding: Pick<BrandingService, 'get'>;
  /** The organization's open disputes (the disputes section, disputes-console.ts). */
  disputes: OperatorDisputes;
  /** The card schemes' ratios of the month (the ratios section, dispute-ratios-console.ts). */
  disputeRatios: Pick<DisputeRatioService, 'ratios'>;
  audit: AuditLog;
  db: Kdb;
}

const ENVIRONMENTS: readonly Environment[] = ['live', 'sandbox'];
/** The window of the volume and success rate. */
export const ACTIVITY_DAYS = 30;
/** Rows of each list on the page: the newest; each section links to the full list where one exists. */
const RECENT = 10;
const WEBHOOK_ENDPOINTS_SHOWN = 50;
/** The search answers at most this many charges, newest first. */
export const SEARCH_LIMIT = 50;
const QUERY_MAX = 320;
const REFERENCE_MIN = 3;

export interface EnvironmentFigures {
  environment: Environment;
  /** Created in the last 30 days: all of them, and by their present status. */
  charges: number;
  succeeded: number;
  unsuccessful: number;
  pending: number;
  /** Succeeded amount in TRY minor units. */
  volume: string;
  /** Succeeded of those that reached an outcome, in tenths of a percent; null without any outcome. */
  successRatePermille: number | null;
  balance: Balance | undefined;
}

/** An environment's charge figures of the last days, from their daily activity. */
function activityFigures(
  environment: Environment,
  days: DailyChargeActivity[],
  balances: Balance[],
): EnvironmentFigures {
  let succeeded = 0;
  let unsuccessful = 0;
  let pending = 0;
  let volume = 0n;
  for (const day of days) {
    succeeded += day.succeeded;
    unsuccessful += day.unsuccessful;
    pending += day.pending;
    volume += day.volume;
  }
  const decided = succeeded + unsuccessful;
  return {
    environment,
    charges: succeeded + unsuccessful + pending,
    succeeded,
    unsuccessful,
    pending,
    volume: volume.toString(),
    successRatePermille: decided === 0 ? null : Math.round((succeeded * 1000) / decided),
    balance: balances.find((b) => b.currency === 'TRY'),
  };
}

/** The newest rows of an environment's list, with the fields the page shows (none when the list refused). */
function recentRows<Row, K extends keyof Row>(
  environment: Environment,
  page: { ok: true; value: { data: Row[] } } | { ok: false },
  shown: readonly K[],
): Array<{ environment: Environment } & Pick<Row, K>> {
  if (!page.ok) return [];
  return page.value.data.map((row) => ({
    environment,
    ...(Object.fromEntries(shown.map((field) => [field, row[field]])) as Pick<Row, K>),
  }));
}

/** What the page shows of each recent batch and payout. */
const BATCH_FIELDS = ['id', 'businessDate', 'net', 'status', 'payoutId'] as const;
const PAYOUT_FIELDS = ['id', 'amount', 'payoutAmount', 'status', 'createdAt'] as const;

/** The figures of one organization's merchant view, both environments. */
export async function merchantFigures(deps: MerchantViewDeps, organizationId: string) {
  const now = deps.clock.now();
  const range = { since: new Date(now.getTime() - ACTIVITY_DAYS * DAY), until: new Date(now.getTime() + 1) };
  const environments: EnvironmentFigures[] = [];
  const batches = [];
  const payouts = [];
  for (const environment of ENVIRONMENTS) {
    const owner = { organizationId, environment };
    const [days, balances, batchPage, payoutPage] = await Promise.all([
      deps.chargeActivity(owner, range),
      deps.ledger.balance(owner),
      deps.settlement.list(owner, { limit: RECENT }),
      deps.payouts.list(owner, { limit: RECENT }),
    ]);
    environments.push(activityFigures(environment, days, balances));
    batches.push(...recentRows(environment, batchPage, BATCH_FIELDS));
    payouts.push(...recentRows(environment, payoutPage, PAYOUT_FIELDS));
  }
  const [webhooks, branding, audit] = await Promise.all([
    deps.webhooks.healthOf(organizationId, WEBHOOK_ENDPOINTS_SHOWN),
    deps.branding.get(organizationId),
    deps.audit.list(deps.db, { limit: RECENT, organizationId }),
  ]);
  return {
    activityDays: ACTIVITY_DAYS,
    environments,
    batches,
    payouts,
    webhooks: webhooks satisfies EndpointHealth[],
    failingEndpoints: webhooks.filter(isFailing).length,
    backlog: webhooks.reduce((sum, w) => sum + w.pending, 0),
    branding: branding ?? null,
    auditEntries: (audit.ok ? audit.value.data : []) satisfies AuditEntryView[],
    disputeRatios: await merchantRatios(deps.disputeRatios, organizationId),
    ...(await merchantDisputes(deps.disputes, organizationId, now)),
  };
}

/** Failing: deliveries have failed since `failingSince`, or the gateway disabled it for failing. */
export const isFailing = (w: EndpointHealth) =>
  w.failingSince !== null || w.endpoint.disabledReason === 'failing';

/** `1234` tenths of a percent -> `'123.4 %'`; integers only. */
export function permille(value: number | null): string {
  if (value === null) return '—';
  return `${Math.floor(value / 10)}.${value % 10} %`;
}

/** TRY minor units as the console shows money (`TRY 1,234.50`, with a sign below zero). */
export function money(minorUnits: string): string {
  const negative = minorUnits.startsWith('-');
  return `${negative ? '-' : ''}${formatAmount(negative ? minorUnits.slice(1) : minorUnits, 'TRY', 'en')}`;
}

export type SearchKind = OperatorChargeMatch['kind'];
export const SEARCH_KINDS: readonly SearchKind[] = ['id', 'reference', 'last4', 'email'];

const CHARGE_ID = /^ch_[0-9A-Za-z]{1,60}$/;
const LAST4 = /^[0-9]{4}$/;
// One @, something on each side, a dot in the domain, no white space: exact addresses only.
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * What a search text means: an explicit kind, or one read from its shape (a `ch_` id, four digits, an
 * address with `@`, otherwise a merchant reference). A refusal is a sentence for the page (400).
 */
export function parsePaymentQuery(
  text: string,
  kind: string | undefined,
): { ok: true; match: OperatorChargeMatch } | { ok: false; message: string } {
  const value = text.trim();
  if (value.length > QUERY_MAX)
    return { ok: false, message: `The search is too long (at most ${QUERY_MAX} characters).` };
  if (CONTROL.test(value)) return { ok: false, message: 'The search may not contain control characters.' };
  // Each search is audited with its text: a card number would be stored in the clear (ADR 0056).
  if (containsCardNumber(value))
    return {
      ok: false,
      message: 'That looks like a card number, which is never searched or stored: search by the last four.',
    };
  const chosen = kind === undefined || kind === '' || kind === 'auto' ? undefined : kind;
  if (chosen !== undefined && !(SEARCH_KINDS as readonly string[]).includes(chosen))
    return {
      ok: false,
      message: 'Choose what to search by: any, charge id, reference, last four or e-mail.',
    };
  const as =
    (chosen as SearchKind | undefined) ??
    (CHARGE_ID.test(value)
      ? 'id'
      : LAST4.test(value)
        ? 'last4'
        : value.includes('@')
          ? 'email'
          : 'reference');
  switch (as) {
    case 'id':
      return CHARGE_ID.test(value)
        ? { ok: true, match: { kind: 'id', value } }
        : { ok: false, message: 'A charge id starts with ch_ and has letters and digits only.' };
    case 'last4':
      return LAST4.test(value)
        ? { ok: true, match: { kind: 'last4', value } }
        : { ok: false, message: 'The last four are exactly four digits.' };
    case 'email':
      return EMAIL.test(value)
        ? { ok: true, match: { kind: 'email', value } }
        : { ok: false, message: 'Give the whole e-mail address: the search is exact (letter case aside).' };
    case 'reference':
      return value.length >= REFERENCE_MIN
        ? { ok: true, match: { kind: 'reference', value } }
        : {
            ok: false,
            message: `Too short to search: give a charge id, a whole reference (${REFERENCE_MIN} characters or more), four digits or an e-mail address.`,
          };
  }
}

const KIND_LABELS: Record<SearchKind, string> = {
  id: 'charge id',
  reference: 'merchant reference',
  last4: 'card last four',
  email: 'customer e-mail',
};

/**
 * `GET /payments?q=…&kind=…`: the cross-merchant payment search of the operator console, read-only for
 * every staff role. Each search is audited (`operator.payments_searched`): who, by which kind, how many
 * charges and which ones; the text itself only for ids and references, never an e-mail address or the
 * last four (docs/operations.md).
 */
export async function operatorPaymentRoutes(
  app: App,
  deps: MerchantViewDeps & { kit: ConsoleKit },
): Promise<void> {
  const { page } = deps.kit;
  app.get('/payments', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const q = typeof query.q === 'string' ? query.q : undefined;
    const kind = typeof query.kind === 'string' ? query.kind : undefined;
    const base = {
      title: 'Payment search',
      q: q ?? '',
      kind: kind && (SEARCH_KINDS as readonly string[]).includes(kind) ? kind : '',
      kinds: SEARCH_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] })),
      results: [] as unknown[],
      searched: undefined as string | undefined,
      more: false,
      limit: SEARCH_LIMIT,
      money,
    };
    if (Array.isArray(query.q) || Array.isArray(query.kind))
      return page(request, reply.code(400), 'operator/payments', {
        ...base,
        error: 'Give one search at a time.',
      });
    if (q === undefined || (q.trim() === '' && (kind === undefined || kind === '')))
      return page(request, reply, 'operator/payments', base);
    const parsed = parsePaymentQuery(q, kind);
    if (!parsed.ok)
      return page(request, reply.code(400), 'operator/payments', { ...base, error: parsed.message });
    const found = await deps.charges.searchAcrossOrganizations(parsed.match, SEARCH_LIMIT + 1);
    const shown = found.slice(0, SEARCH_LIMIT);
    const actor = actorOf(request);
    await deps.audit.record(deps.db, {
      actor: actor.actor,
      action: 'operator.payments_searched',
      targetType: 'charge_search',
      targetId: parsed.match.kind,
      after: {
        kind: parsed.match.kind,
        ...(parsed.match.kind === 'id' || parsed.match.kind === 'reference'
          ? { query: parsed.match.value }
          : {}),
        results: shown.length,
        more: found.length > SEARCH_LIMIT,
        chargeIds: shown.map((r) => r.charge.id),
      },
      requestId: actor.requestId,
      ip: actor.ip,
    });
    return page(request, reply, 'operator/payments', {
      ...base,
      kind: base.kind,
      searched: KIND_LABELS[parsed.match.kind],
      more: found.length > SEARCH_LIMIT,
      results: shown.map((r) => ({
        organizationId: r.organizationId,
        environment: r.environment,
        id: r.charge.id,
        merchantReference: r.charge.merchantReference,
        amount: r.charge.amount,
        status: r.charge.status,
        card: r.charge.card,
        createdAt: r.charge.createdAt,
      })),
    });
  });
}
