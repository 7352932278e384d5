import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { CUSTOMER_ERRORS } from './errors.js';
import {
  CustomerCreateSchema,
  CustomerDeletedSchema,
  CustomerIdParamsSchema,
  CustomerListQuerySchema,
  CustomerListSchema,
  CustomerUpdateSchema,
  CustomerViewSchema,
} from './schemas.js';
import type { CustomerService } from './service.js';

const unwrap = unwrapWith(CUSTOMER_ERRORS);

const TAGS = ['Customers'];
const FLAG = 'Needs the `customers` feature of the organization (403 `forbidden` without it).';
const OWNERSHIP =
  'Customers belong to the organization and environment of the key; another organization’s or ' +
  'environment’s customer, and a deleted one, is 404 `not_found`.';
const SECRET =
  'The ID number is stored encrypted and never returned (`hasIdNumber` says whether one is on file).';

/** `/v1/customers` (spec section 1, flag `customers`). */
export async function customerRoutes(
  app: App,
  options: { service: CustomerService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const { service } = options;
  const kit = routeKit({
    tags: TAGS,
    feature: 'customers',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  app.post(
    '/v1/customers',
    kit.idempotent(
      {
        operationId: 'createCustomer',
        summary: 'Create a customer',
        description:
          'Records who pays: name, e-mail, phone, your reference, an ID number and metadata, all optional. ' +
          'A charge can then name it with `customerId` instead of an inline `customer` block. ' +
          `${SECRET} Needs scope \`write\`. Honours \`X-Idempotency-Key\`. ${FLAG}`,
      },
      {
        body: CustomerCreateSchema,
        response: { 201: CustomerViewSchema, ...failures('create') },
      },
    ),
    async (request, reply) =>
      reply.code(201).send(unwrap(await service.create(ownerOf(request), request.body))),
  );

  kit.list(app, '/v1/customers', CustomerListQuerySchema, CustomerListSchema, {
    operationId: 'listCustomers',
    summary: 'List customers',
    description:
      'Customers of this environment, newest first, `limit` (1 to 100, default 20) per page, optionally ' +
      'those with one `email` (case-insensitive); pass `nextCursor` back as `cursor` with the same ' +
      `filter. Deleted customers are not listed. Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/customers/:id', CustomerIdParamsSchema, CustomerViewSchema, {
    operationId: 'getCustomer',
    summary: 'Retrieve a customer',
    description: `${SECRET} Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.get(ownerOf(request), id)),
  });

  app.post(
    '/v1/customers/:id',
    kit.idempotent(
      {
        operationId: 'updateCustomer',
        summary: 'Update a customer',
        description:
          'Changes only the members sent; `null` clears one (`metadata` is replaced whole). Charges made ' +
          `before keep the details they were made with. ${SECRET} Needs scope \`write\`. Honours ` +
          `\`X-Idempotency-Key\`. ${OWNERSHIP} ${FLAG}`,
      },
      {
        params: CustomerIdParamsSchema,
        body: CustomerUpdateSchema,
        response: { 200: CustomerViewSchema, ...failures('update') },
      },
    ),
    async (request) => unwrap(await service.update(ownerOf(request), request.params.id, request.body)),
  );

  kit.byId(app, '/v1/customers/:id', CustomerIdParamsSchema, CustomerDeletedSchema, {
    operationId: 'deleteCustomer',
    summary: 'Delete a customer',
    description:
      'Erases what identifies the person (name, e-mail, phone, reference, ID number, metadata) and hides ' +
      'the customer from every read; its charges keep their own copy of the details and its id. A second ' +
      `delete is 404 \`not_found\`. Needs scope \`write\`. ${OWNERSHIP} ${FLAG}`,
    method: 'DELETE',
    auth: 'write',
    read: async (request, id) => unwrap(await service.remove(ownerOf(request), id)),
  });
}
