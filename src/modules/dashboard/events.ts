import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { EventFeed } from '../events/feed.js';
import { EVENT_TYPES, type EventPayload, type EventType } from '../events/service.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { EVENT_MESSAGES, type EventMessages } from './event-i18n.js';
import {
  CursorQuerySchema,
  cursorOf,
  guardedRoute,
  IdParamsSchema,
  ownerOf,
  PageQuerySchema,
  registerPages,
  viewReader,
  type PageKit,
  type PageRequest,
} from './kit.js';

export interface DashboardEventPagesOptions {
  kit: PageKit;
  /** The same reads as `GET /v1/events…`: the events of the session's environment. */
  events: EventFeed;
}

const EVENT_PAGE_LIMIT = 25;

const EventListRoute = {
  hide: true,
  querystring: Type.Object({
    ...CursorQuerySchema.properties,
    type: Type.Optional(Type.String({ maxLength: 64 })),
  }),
};
const EventRoute = { hide: true, querystring: PageQuerySchema, params: IdParamsSchema };

/** Where the dashboard shows what an event is about, if it has a page for it. */
function linkOf(event: EventPayload): { path: string; kind: 'payment' | 'payout' } | undefined {
  const id = typeof event.data.id === 'string' ? event.data.id : undefined;
  if (event.payment)
    return { path: `/dashboard/payments/${encodeURIComponent(event.payment.id)}`, kind: 'payment' };
  if (id !== undefined && event.eventType.startsWith('payout.'))
    return { path: `/dashboard/payouts/${encodeURIComponent(id)}`, kind: 'payout' };
  return undefined;
}

/**
 * The event pages of the merchant dashboard (the Developers area), for an organization
 * with the `events` flag, as `GET /v1/events` is (otherwise 404 and no link): the events of the session's
 * environment newest first, by type, and each event with its payload exactly as webhooks carry it and a
 * link to what it is about. Read only; every role reads them (`readEvents`).
 */
export async function eventPages(app: App, options: DashboardEventPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/events', EventListRoute, reader, showEvents),
    guardedRoute('GET', '/dashboard/events/:id', EventRoute, reader, showEvent),
  ]);
}

const em = (request: FastifyRequest): EventMessages => EVENT_MESSAGES[localeOf(request)];

function pageData(request: FastifyRequest, current: SignedIn) {
  const messages = em(request);
  return { title: () => messages.title, environment: current.session.environment, em: messages };
}

const reader = viewReader<DashboardEventPagesOptions>({
  permission: 'readEvents',
  feature: 'events',
  view: 'dashboard-events',
  data: pageData,
});

async function showEvents(
  { kit, events }: DashboardEventPagesOptions,
  request: PageRequest<typeof EventListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const cursor = cursorOf(request.query.cursor);
  const typeText = request.query.type === '' ? undefined : request.query.type;
  const type = EVENT_TYPES.find((candidate) => candidate === typeText);
  const page = {
    ...pageData(request, current),
    types: EVENT_TYPES,
    type: typeText ?? '',
    events: [] as EventPayload[],
    nextCursor: null as string | null,
    paged: cursor !== undefined,
    linkOf,
  };
  if (typeText !== undefined && type === undefined)
    return kit.render(request, reply, 'dashboard-events', 400, { ...page, badType: true });
  const listed = await events.list(ownerOf(current), {
    limit: EVENT_PAGE_LIMIT,
    ...(cursor === undefined ? {} : { cursor }),
    ...(type === undefined ? {} : { type: type satisfies EventType }),
  });
  if (!listed.ok) throw new ApiError('not_found', 'No such page of events.');
  return kit.render(request, reply, 'dashboard-events', 200, {
    ...page,
    events: listed.value.data,
    nextCursor: listed.value.nextCursor,
  });
}

async function showEvent(
  { kit, events }: DashboardEventPagesOptions,
  request: PageRequest<typeof EventRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const found = await events.get(ownerOf(current), request.params.id);
  if (!found.ok) throw new ApiError('not_found', 'No such event.');
  const event = found.value;
  return kit.render(request, reply, 'dashboard-event', 200, {
    ...pageData(request, current),
    title: () => event.eventType,
    event,
    link: linkOf(event),
    payload: JSON.stringify(event, null, 2),
  });
}
