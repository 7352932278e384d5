import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import { IdParamsSchema, PageSchema } from '../../http/schemas.js';
import type { App } from '../../http/server.js';
import { callerOf } from '../api-keys/context.js';
import { EVENT_ERRORS } from './errors.js';
import type { EventFeed } from './feed.js';
import { EVENT_TYPES } from './service.js';

const EventTypeSchema = Type.Enum([...EVENT_TYPES], { description: 'The kind of event.' });

const unwrap = unwrapWith(EVENT_ERRORS);

export const EventSchema = Type.Object(
  {
    id: Type.String({ pattern: '^evt_', description: 'Prefix `evt_`; the same on every webhook attempt.' }),
    eventType: EventTypeSchema,
    createdAt: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The resource as the API shows it when the event happened, `metadata` included.',
      },
    ),
    payment: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: 'The charge id.' }),
          paymentId: Type.String({ description: 'The acquirer payment id.' }),
          merchantReference: Type.String(),
        },
        { description: 'Charge events only.' },
      ),
    ),
  },
  { description: 'An event: exactly the JSON body that webhooks carry (product decision 28).' },
);

const EventListQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Opaque; the `nextCursor` of the previous page.',
      }),
    ),
    type: Type.Optional(EventTypeSchema),
  },
  { additionalProperties: false },
);

const EventIdParamsSchema = IdParamsSchema('Prefix `evt_`.');

const kit = routeKit({ tags: ['Events'], feature: 'events' });
const FLAG_NOTE = 'Needs the `events` feature of the organization (403 `forbidden` without it).';

const ownerOf = (request: FastifyRequest) => {
  const caller = callerOf(request);
  return { organizationId: caller.organizationId, environment: caller.environment };
};

/** GET /v1/events and GET /v1/events/{id}: the events feed, behind the `events` flag. */
export async function eventRoutes(app: App, options: { feed: EventFeed }): Promise<void> {
  app.get(
    '/v1/events',
    kit.route(
      {
        operationId: 'listEvents',
        summary: 'List events',
        description:
          'Events of this environment, newest first, optionally of one `type`; `limit` 1 to 100 (default 20), ' +
          `pass \`nextCursor\` back as \`cursor\`. Needs scope \`read\`. ${FLAG_NOTE}`,
      },
      {
        querystring: EventListQuerySchema,
        response: {
          200: PageSchema(EventSchema),
          ...failures('list'),
        },
      },
    ),
    async (request) => unwrap(await options.feed.list(ownerOf(request), request.query)),
  );

  app.get(
    '/v1/events/:id',
    kit.route(
      {
        operationId: 'getEvent',
        summary: 'Retrieve an event',
        description:
          'The stored payload, as webhooks carry it. Needs scope `read`. An event of another organization ' +
          `or environment is 404 \`not_found\`. ${FLAG_NOTE}`,
      },
      {
        params: EventIdParamsSchema,
        response: { 200: EventSchema, ...failures('retrieve') },
      },
    ),
    async (request) => {
      return unwrap(await options.feed.get(ownerOf(request), request.params.id));
    },
  );
}
