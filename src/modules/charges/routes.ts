import type { FastifyReply } from 'fastify';
import { failures, idempotencyKeyOf, routeKit, unwrapWith } from '../../http/api-routes.js';
import { claimedOutcome, type IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { chargeCreations } from '../../metrics/registry.js';
import { callerOf, callerScope, ownerOf } from '../api-keys/context.js';
import { CHARGE_ERRORS, PROVIDER_RETRY_AFTER_SECONDS } from './errors.js';
import {
  ChargeCreateSchema,
  ChargeIdParamsSchema,
  ChargeListQuerySchema,
  ChargeListSchema,
  ChargeViewSchema,
  type ChargeView,
} from './schemas.js';
import type { ChargeService } from './service.js';

export { PROVIDER_RETRY_AFTER_SECONDS } from './errors.js';

export interface ChargeRoutesOptions {
  service: ChargeService;
  idempotency: Omit<IdempotencyOptions, 'scopeOf'>;
}

const TAGS = ['Charges'];

const unwrap = unwrapWith(CHARGE_ERRORS);

/** POST /v1/charges, GET /v1/charges/{id} and GET /v1/charges (spec sections 2.2 to 2.4 and 4). */
export async function chargeRoutes(app: App, options: ChargeRoutesOptions): Promise<void> {
  const { service } = options;
  const kit = routeKit({ tags: TAGS, idempotency: { ...options.idempotency, scopeOf: callerScope } });

  app.post(
    '/v1/charges',
    kit.idempotent(
      {
        operationId: 'createCharge',
        summary: 'Create a charge',
        description:
          'Creates a charge in Turkish lira and its payment at the acquirer, and returns `paymentPageUrl`: ' +
          'redirect the customer there. Needs scope `write`. Send `X-Idempotency-Key` and retry with the same ' +
          'key: the same key and body return the original response for 24 hours and never create a second ' +
          'charge or payment; the same key with another body is 409 `idempotency_key_reuse`; a retry while ' +
          'the first request still runs is 409 `duplicate_request`. An acquirer refusal is 502 ' +
          "`provider_rejected` (`details.providerCode`, `details.providerStatus`: the acquirer's code and " +
          'HTTP status); an acquirer outage after internal retries, or an acquirer silent for the ' +
          "request's time budget, is 502 `provider_unavailable` with `Retry-After: 30` (retry with the " +
          'same key after 30 seconds). A body that carries a card number (13 to 19 digits, whole or ' +
          "grouped by spaces or dashes, in a card scheme's issuer range and length, Luhn-valid) in any member " +
          'is refused (400): card data goes to the hosted checkout only. Timestamps and order ids are not ' +
          'card numbers.',
      },
      {
        body: ChargeCreateSchema,
        response: { 201: ChargeViewSchema, ...failures('create', 502) },
      },
    ),
    async (request, reply) => {
      // With an idempotency claim, phase 2 and the stored outcome commit in one statement (ADR 0046);
      // the claim is then done with and the stored bytes are the answer.
      const claimed = claimedOutcome<ChargeView>(request, reply, options.idempotency.store, 201);
      const result = await service.create(ownerOf(request), request.body, {
        idempotencyKey: idempotencyKeyOf(request),
        features: callerOf(request).featureFlags,
        ...(claimed === undefined ? {} : { outcome: claimed.seam }),
      });
      chargeCreations.inc({
        environment: ownerOf(request).environment,
        outcome: result.ok ? 'created' : result.error.code,
      });
      if (!result.ok && result.error.code === 'provider_unavailable') {
        reply.header('retry-after', PROVIDER_RETRY_AFTER_SECONDS);
      }
      const view = unwrap(result);
      const storedBody = claimed?.storedBody();
      if (storedBody !== undefined) {
        // Stored (or the claim was taken over, when the retry that holds it now records its own outcome):
        // either way this request's claim is finished.
        request.idempotencyClaim = null;
        // A string with a JSON content type goes out as it is: these are the serialiser's own bytes.
        return (reply as FastifyReply).code(201).type('application/json; charset=utf-8').send(storedBody);
      }
      return reply.code(201).send(view);
    },
  );

  kit.byId(app, '/v1/charges/:id', ChargeIdParamsSchema, ChargeViewSchema, {
    operationId: 'getCharge',
    summary: 'Retrieve a charge',
    description:
      'The charge with its customer block (never the ID number) and `providerStatus`. Needs scope `read`. ' +
      'A charge of another organization or environment, or an unknown id, is 404 `not_found`.',
    read: async (request, id) => unwrap(await service.get(ownerOf(request), id)),
  });

  kit.list(app, '/v1/charges', ChargeListQuerySchema, ChargeListSchema, {
    operationId: 'listCharges',
    summary: 'List charges',
    description:
      'Charges of this environment, newest first, `limit` (1 to 100, default 20) per page. Pass ' +
      '`nextCursor` back as `cursor` for the next page; it is null on the last page. Charges created while ' +
      'you page appear on a new first page, never as duplicates or gaps. `customerId` (flag `customers`) ' +
      'keeps the charges made for one customer. Needs scope `read`.',
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });
}
