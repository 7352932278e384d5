import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { formatAmount } from '../checkout/format.js';
import type { ChargeService } from '../charges/service.js';
import type { CustomerService } from '../customers/index.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { CUSTOMER_MESSAGES, type CustomerMessages } from './customer-i18n.js';
import {
  CursorQuerySchema,
  cursorOf,
  guardedRoute,
  IdParamsSchema,
  ownerOf,
  registerPages,
  sessionFields,
  viewReader,
} from './kit.js';
import type { PageKit, PageRequest } from './kit.js';
import { PAYMENT_MESSAGES } from './payment-i18n.js';
import { refundStateOf } from './payment-views.js';

export interface DashboardCustomerPagesOptions {
  kit: PageKit;
  /** The same reads as `GET /v1/customers…`: the customers of the session's environment. */
  customers: Pick<CustomerService, 'get' | 'list'>;
  /** A customer's charges, as `GET /v1/charges?customerId=` lists them. */
  charges: Pick<ChargeService, 'list'>;
}

/** Customers per page, and a customer's charges per page. */
const CUSTOMER_PAGE_LIMIT = 20;
const CHARGE_PAGE_LIMIT = 20;
/** The longest e-mail address a customer may have (RFC 5321; the API's limit). */
const EMAIL_MAX = 254;

const CustomerListRoute = {
  hide: true,
  querystring: Type.Object({
    ...CursorQuerySchema.properties,
    email: Type.Optional(Type.String({ maxLength: EMAIL_MAX })),
  }),
};
const CustomerRoute = { hide: true, querystring: CursorQuerySchema, params: IdParamsSchema };

/**
 * The customer pages of the merchant dashboard, only for an organization with the
 * `customers` flag (otherwise 404, and no link in the navigation): the customers of the session's
 * environment, newest first, found by e-mail, and each customer with its charges. Read only; the ID
 * number is never shown, only whether one is on file. Another organization's or environment's customer,
 * and a deleted one, is 404.
 */
export async function customerPages(app: App, options: DashboardCustomerPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/customers', CustomerListRoute, reader, showCustomers),
    guardedRoute('GET', '/dashboard/customers/:id', CustomerRoute, reader, showCustomer),
  ]);
}

const cm = (request: FastifyRequest): CustomerMessages => CUSTOMER_MESSAGES[localeOf(request)];

/**
 * The signed-in user who may read customers; otherwise the redirect to login, the refusal page, or
 * (without the flag) the page that does not exist.
 */
const reader = viewReader<DashboardCustomerPagesOptions>({
  permission: 'readCustomers',
  feature: 'customers',
  view: 'dashboard-customers',
  data: pageData,
});

function pageData(request: FastifyRequest, current: SignedIn) {
  const messages = cm(request);
  const locale = localeOf(request);
  return {
    title: () => messages.title,
    ...sessionFields(current),
    cm: messages,
    money: (amount: string, currency: string) => formatAmount(amount, currency, locale),
  };
}

async function showCustomers(
  { kit, customers }: DashboardCustomerPagesOptions,
  request: PageRequest<typeof CustomerListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const email = request.query.email?.trim() || undefined;
  const cursor = cursorOf(request.query.cursor);
  const listed = await customers.list(ownerOf(current), {
    limit: CUSTOMER_PAGE_LIMIT,
    ...(cursor === undefined ? {} : { cursor }),
    ...(email === undefined ? {} : { email }),
  });
  if (!listed.ok) throw new ApiError('not_found', 'No such page of customers.');
  return kit.render(request, reply, 'dashboard-customers', 200, {
    ...pageData(request, current),
    customers: listed.value.data,
    email: email ?? '',
    emailMax: EMAIL_MAX,
    nextCursor: listed.value.nextCursor,
    paged: cursor !== undefined,
  });
}

async function showCustomer(
  { kit, customers, charges }: DashboardCustomerPagesOptions,
  request: PageRequest<typeof CustomerRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const owner = ownerOf(current);
  const found = await customers.get(owner, request.params.id);
  if (!found.ok) throw new ApiError('not_found', 'No such customer.');
  const customer = found.value;
  const cursor = cursorOf(request.query.cursor);
  const listed = await charges.list(owner, {
    limit: CHARGE_PAGE_LIMIT,
    customerId: customer.id,
    ...(cursor === undefined ? {} : { cursor }),
  });
  if (!listed.ok) throw new ApiError('not_found', 'No such page of charges.');
  return kit.render(request, reply, 'dashboard-customer', 200, {
    ...pageData(request, current),
    title: () => customer.name ?? customer.email ?? customer.id,
    customer,
    // A refunded charge stays `succeeded`: what refunds gave back is said beside the status.
    charges: listed.value.data.map((charge) => ({ ...charge, refundState: refundStateOf(charge) })),
    refundStates: PAYMENT_MESSAGES[localeOf(request)].refundStates,
    nextCursor: listed.value.nextCursor,
    paged: cursor !== undefined,
  });
}
