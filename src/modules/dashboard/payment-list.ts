import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ChargeSearch, ChargeSort } from '../charges/service.js';
import { CHARGE_LIMITS, CHARGE_STATUSES, PAYMENT_METHODS } from '../charges/schemas.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { CursorQuerySchema, ownerOf, type PageRequest } from './kit.js';
import type { FilterProblem } from './payment-i18n.js';
import { pageData } from './payment-pages.js';
import { parseAmount, refundStateOf } from './payment-views.js';
import type { DashboardPaymentPagesOptions } from './payment-options.js';

/** Charges per page of the list. */
export const PAYMENT_PAGE_LIMIT = 25;
const SORTS = ['newest', 'oldest', 'amount_desc', 'amount_asc'] as const satisfies readonly ChargeSort[];
/** The list's refund filter: the status stays `succeeded` after a refund, so refunds have their own. */
const REFUND_FILTERS = ['any', 'full', 'partial', 'none'] as const satisfies readonly NonNullable<
  ChargeSearch['refunded']
>[];
const EMAIL_MAX = CHARGE_LIMITS.customerEmail;
const REFERENCE_MAX = CHARGE_LIMITS.merchantReference;
/** A form's free text is bounded before it is looked at; the checks below give the precise errors. */
const Text = Type.Optional(Type.String({ maxLength: 1000 }));

const PaymentListQuerySchema = Type.Object({
  ...CursorQuerySchema.properties,
  status: Text,
  method: Text,
  from: Text,
  to: Text,
  min: Text,
  max: Text,
  reference: Text,
  email: Text,
  refunded: Text,
  q: Text,
  sort: Text,
});
export const PaymentListRoute = { hide: true, querystring: PaymentListQuerySchema };

/** The filters as typed (shown back in the form) and as understood. */
interface ListForm {
  status: string;
  method: string;
  from: string;
  to: string;
  min: string;
  max: string;
  reference: string;
  email: string;
  refunded: string;
  /** The search box. */
  q: string;
  sort: string;
}

/** The list: the charges of the session's environment, filtered, sorted and cursor paged. */
export async function showPayments(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof PaymentListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit, charges } = options;
  const q = request.query;
  const form: ListForm = {
    status: q.status?.trim() ?? '',
    method: q.method?.trim() ?? '',
    from: q.from?.trim() ?? '',
    to: q.to?.trim() ?? '',
    min: q.min?.trim() ?? '',
    max: q.max?.trim() ?? '',
    reference: q.reference?.trim() ?? '',
    email: q.email?.trim() ?? '',
    refunded: q.refunded?.trim() ?? '',
    q: q.q?.trim() ?? '',
    sort: q.sort?.trim() ?? '',
  };
  const parsed = parseFilters(form);
  const cursor = q.cursor === '' ? undefined : q.cursor;
  // Only what the user typed travels in the links: an empty filter is no filter.
  const filterParams = Object.fromEntries(Object.entries(form).filter(([, value]) => value !== '')) as Record<
    string,
    string
  >;
  const render = (status: number, extra: Record<string, unknown>) =>
    kit.render(request, reply, 'dashboard-payments', status, {
      ...pageData(options, request, current),
      form,
      filterParams,
      filtered: Object.keys(filterParams).some((key) => key !== 'sort'),
      statuses: CHARGE_STATUSES,
      refundFilters: REFUND_FILTERS,
      methods: PAYMENT_METHODS,
      sorts: SORTS,
      limits: { email: EMAIL_MAX, reference: REFERENCE_MAX },
      amountExample: localeOf(request) === 'tr' ? '125,50' : '125.50',
      problems: [],
      charges: [],
      nextCursor: null,
      paged: false,
      ...extra,
    });
  if (!parsed.ok) return render(400, { problems: parsed.problems });
  const listed = await charges.search(ownerOf(current), {
    limit: PAYMENT_PAGE_LIMIT,
    filter: parsed.filter,
    sort: parsed.sort,
    ...(cursor === undefined ? {} : { cursor }),
  });
  if (!listed.ok) return render(400, { problems: ['cursor'] satisfies FilterProblem[] });
  return render(200, {
    charges: listed.value.data.map((charge) => ({ ...charge, refundState: refundStateOf(charge) })),
    nextCursor: listed.value.nextCursor,
    paged: cursor !== undefined,
  });
}

/** The filters of the list, each checked: the precise problems, never a server error. */
function parseFilters(
  form: ListForm,
): { ok: true; filter: ChargeSearch; sort: ChargeSort } | { ok: false; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const filter: ChargeSearch = {};
  if (form.status !== '') {
    const status = CHARGE_STATUSES.find((value) => value === form.status);
    if (status) filter.status = status;
    else problems.push('status');
  }
  if (form.method !== '') {
    const method = PAYMENT_METHODS.find((value) => value === form.method);
    if (method) filter.method = method;
    else problems.push('method');
  }
  const from = form.from === '' ? undefined : parseDay(form.from);
  const to = form.to === '' ? undefined : parseDay(form.to);
  if (from === null) problems.push('createdFrom');
  if (to === null) problems.push('createdTo');
  if (from && to && from.getTime() > to.getTime()) problems.push('dateOrder');
  if (from) filter.createdFrom = from;
  // The last day is included: created before the next midnight (UTC, as the dashboard shows times).
  if (to) filter.createdBefore = new Date(to.getTime() + 86_400_000);
  const min = form.min === '' ? undefined : (parseAmount(form.min) ?? null);
  const max = form.max === '' ? undefined : (parseAmount(form.max) ?? null);
  if (min === null) problems.push('amountMin');
  if (max === null) problems.push('amountMax');
  if (typeof min === 'bigint' && typeof max === 'bigint' && min > max) problems.push('amountOrder');
  if (typeof min === 'bigint') filter.amountMin = min.toString();
  if (typeof max === 'bigint') filter.amountMax = max.toString();
  if (form.reference !== '') {
    if (form.reference.length > REFERENCE_MAX) problems.push('reference');
    else filter.reference = form.reference;
  }
  if (form.email !== '') {
    if (form.email.length > EMAIL_MAX) problems.push('email');
    else filter.email = form.email;
  }
  if (form.refunded !== '') {
    const refunded = REFUND_FILTERS.find((value) => value === form.refunded);
    if (refunded) filter.refunded = refunded;
    else problems.push('refunded');
  }
  if (form.q !== '') {
    if (form.q.length > EMAIL_MAX) problems.push('search');
    else filter.search = { kind: searchKindOf(form.q), value: form.q };
  }
  let sort: ChargeSort = 'newest';
  if (form.sort !== '') {
    const chosen = SORTS.find((value) => value === form.sort);
    if (chosen) sort = chosen;
    else problems.push('sort');
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter, sort };
}

/** What the search box was given, by its shape: a charge id, a card's last four, an e-mail, or a reference. */
function searchKindOf(text: string): 'id' | 'last4' | 'email' | 'reference' {
  if (/^ch_[0-9a-z]+$/.test(text)) return 'id';
  if (/^[0-9]{4}$/.test(text)) return 'last4';
  if (text.includes('@')) return 'email';
  return 'reference';
}

/** A day as `<input type="date">` sends it (YYYY-MM-DD), as midnight UTC; null when it is no such day. */
function parseDay(text: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const date = new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) return null;
  return date;
}
