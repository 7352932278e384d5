import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { Owner } from '../../shared/owner.js';
import type { Result } from '../../shared/result.js';
import { EVENT_TYPES } from '../events/service.js';
import { webhookRefusal, type WebhookError } from '../webhooks/errors.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import { URL_PROBLEM_MESSAGES } from '../webhooks/url-guard.js';
import { contextOf, type SignedIn } from '../users/http.js';
import {
  CsrfFormSchema,
  IdParamsSchema,
  ownerOf,
  pageSchema,
  type CommandOutcome,
  type PageCommand,
  type PageKit,
  type PageRequest,
} from './kit.js';
import type { DashboardWebhookPagesOptions } from './webhook-options.js';
import { URL_PROBLEM_KEYS, type WebhookFormError } from './webhook-i18n.js';

/** How many endpoints the list shows, and attempts the detail page shows (newest first). */
const ENDPOINT_PAGE_LIMIT = 100;
export const ENDPOINT_ATTEMPTS_LIMIT = 50;
export const EVENT_CHOICES = [...EVENT_TYPES, '*'] as const;
export const GRACE_CHOICES = ['0', '3600', '86400', '259200', '604800'] as const;
export const DEFAULT_GRACE = '86400';
export const PAUSE_CHOICES = ['300', '900', '1800', '3600', '0'] as const;
export const DEFAULT_PAUSE = '900';
export const LIMITS = { url: 2048, description: 500 } as const;

/** A form post about one endpoint with no more than its CSRF token. */
export const EndpointCommandRoute = pageSchema({ params: IdParamsSchema, body: CsrfFormSchema });

export interface EndpointFormValues {
  url: string;
  description: string;
  enabledEvents: string[];
}
const EMPTY_FORM: EndpointFormValues = { url: '', description: '', enabledEvents: [] };
const NOTICES = [
  'deleted',
  'disabled',
  'enabled',
  'retried',
  'updated',
  'unchanged',
  'switched',
  'resumed',
] as const;
export type Notice = (typeof NOTICES)[number];
/** The errors of the edit form, each shown next to its field. */
export interface EditFieldErrors {
  url: WebhookFormError[];
  events: WebhookFormError[];
  description: WebhookFormError[];
}

export const canManage = (kit: PageKit, current: SignedIn) => kit.may(current, 'manageWebhooks');

export const audit = (
  { users }: DashboardWebhookPagesOptions,
  request: FastifyRequest,
  current: SignedIn,
  action: string,
  targetId: string,
  after?: unknown,
) =>
  users.recordAudit(current.account.user, action, contextOf(request), {
    targetType: 'webhook_endpoint',
    targetId,
    ...(after === undefined ? {} : { after }),
  });

export const noticeOf = (value: string | undefined): Notice | undefined =>
  NOTICES.find((notice) => notice === value);

export const endpointPath = (id: string) => `/dashboard/webhooks/${encodeURIComponent(id)}`;

export const noSuchEndpoint = () => new ApiError('not_found', 'No such webhook endpoint.');

/** The endpoint form as typed: one checkbox gives a string, several an array. */
export function endpointFormOf(body: {
  url?: string;
  description?: string;
  enabledEvents?: string | string[];
}): EndpointFormValues {
  const rawEvents = body.enabledEvents ?? [];
  return {
    url: (body.url ?? '').trim(),
    description: (body.description ?? '').trim(),
    enabledEvents: Array.isArray(rawEvents) ? rawEvents : [rawEvents],
  };
}

/** The event kinds chosen: `*` covers every kind, so it is sent alone. */
export function chosenEventsOf(form: EndpointFormValues) {
  const chosen = EVENT_CHOICES.filter((kind) => form.enabledEvents.includes(kind));
  return chosen.includes('*') ? ['*'] : chosen;
}

// ---------------------------------------------------------------- the list and the creation form

export async function listPage(
  { kit, webhooks: endpoints }: DashboardWebhookPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: { errors?: WebhookFormError[]; form?: EndpointFormValues; notice?: Notice } = {},
) {
  const listed = await endpoints.list(ownerOf(current), { limit: ENDPOINT_PAGE_LIMIT });
  if (!listed.ok) throw webhookRefusal(listed.error);
  const page = listed.value;
  return kit.render(request, reply, 'dashboard-webhooks', status, {
    title: (_m, w) => w.title,
    csrf: current.session.csrfToken,
    environment: current.session.environment,
    endpoints: page.data,
    canManage: canManage(kit, current),
    eventChoices: EVENT_CHOICES,
    errors: extra.errors ?? [],
    form: extra.form ?? EMPTY_FORM,
    notice: extra.notice,
    limits: LIMITS,
  });
}

// ---------------------------------------------------------------- one endpoint and its deliveries

export async function endpointOr404(
  { webhooks: endpoints }: DashboardWebhookPagesOptions,
  current: SignedIn,
  id: string,
) {
  const found = await endpoints.get(ownerOf(current), id);
  if (!found.ok) throw noSuchEndpoint();
  return found.value;
}

export async function detailPage(
  options: DashboardWebhookPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
  status: number,
  extra: {
    notice?: Notice;
    error?: WebhookFormError;
    editErrors?: EditFieldErrors;
    editForm?: EndpointFormValues;
  } = {},
) {
  const { kit, webhooks: endpoints } = options;
  const endpoint = await endpointOr404(options, current, id);
  const attempts = await endpoints.endpointAttempts(ownerOf(current), endpoint.id, ENDPOINT_ATTEMPTS_LIMIT);
  // One Retry button per delivery: on its newest attempt.
  const seen = new Set<string>();
  const rows = attempts.map((attempt) => {
    const newestOfDelivery = !seen.has(attempt.deliveryId);
    seen.add(attempt.deliveryId);
    return { ...attempt, newestOfDelivery };
  });
  return kit.render(request, reply, 'dashboard-webhooks-endpoint', status, {
    title: (_m, w) => `${w.title}: ${endpoint.url}`,
    csrf: current.session.csrfToken,
    environment: current.session.environment,
    endpoint,
    attempts: rows,
    attemptsLimit: ENDPOINT_ATTEMPTS_LIMIT,
    canManage: canManage(kit, current),
    graceChoices: GRACE_CHOICES,
    defaultGrace: DEFAULT_GRACE,
    pauseChoices: PAUSE_CHOICES,
    defaultPause: DEFAULT_PAUSE,
    notice: extra.notice,
    error: extra.error,
    whenExact: exactTime,
    eventChoices: EVENT_CHOICES,
    limits: LIMITS,
    editErrors: extra.editErrors ?? { url: [], events: [], description: [] },
    editForm: extra.editForm ?? {
      url: endpoint.url,
      description: endpoint.description ?? '',
      enabledEvents: endpoint.enabledEvents,
    },
  });
}

/**
 * A command of the endpoint page for the roles that manage webhooks; any other role gets the endpoint
 * page with the refusal.
 */
export function endpointCommand(
  options: DashboardWebhookPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  run: PageCommand['run'],
) {
  const { kit } = options;
  return kit.command(request, reply, {
    permission: 'manageWebhooks',
    refused: (current) => detailPage(options, request, reply, current, id, 403, { error: 'not_permitted' }),
    run,
  });
}

/** The handler of a command on the endpoint of the path (`:id`), for the roles that manage webhooks. */
export function onEndpoint<R extends PageRequest<typeof EndpointCommandRoute>>(
  run: (
    options: DashboardWebhookPagesOptions,
    request: R,
    reply: FastifyReply,
    current: SignedIn,
    id: string,
  ) => Promise<CommandOutcome>,
) {
  return (options: DashboardWebhookPagesOptions, request: R, reply: FastifyReply) => {
    const { id } = request.params;
    return endpointCommand(options, request, reply, id, (current) =>
      run(options, request, reply, current, id),
    );
  };
}

/** A change of one endpoint through the webhooks service (404 unless it is theirs), then audited. */
export interface EndpointChange<R> {
  change(
    webhooks: WebhookEndpointService,
    owner: Owner,
    id: string,
    request: R,
  ): Promise<Result<{ id: string }, WebhookError>>;
  /** A refusal the endpoint's page says itself, rather than 404. */
  shown?: WebhookFormError;
  /** The audit's action, and what it records after the change. */
  audit(request: R): { action: string; after?: unknown };
  /** Where it leads: the endpoint's page (the list once deleted), with a notice. */
  outcome(id: string, request: R): { path: string; notice: Notice };
}

/** The handler of an endpoint command that makes one change (see `EndpointChange`). */
export function endpointChange<R extends PageRequest<typeof EndpointCommandRoute>>(spec: EndpointChange<R>) {
  return onEndpoint<R>(async (options, request, reply, current, id) => {
    const result = await spec.change(options.webhooks, ownerOf(current), id, request);
    if (!result.ok) {
      if (result.error.code !== spec.shown) throw noSuchEndpoint();
      const shown = { error: spec.shown };
      return { reply: await detailPage(options, request, reply, current, id, 409, shown) };
    }
    const { action, after } = spec.audit(request);
    await audit(options, request, current, action, result.value.id, after);
    return spec.outcome(id, request);
  });
}

/** The form error of a URL problem the webhooks service reported (its messages are English). */
export function urlProblemOf(message: string): WebhookFormError {
  return URL_PROBLEM_KEYS.find((key) => URL_PROBLEM_MESSAGES[key] === message) ?? 'invalid_url';
}

/** A time to the second, UTC: delivery attempts come seconds apart. */
function exactTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
