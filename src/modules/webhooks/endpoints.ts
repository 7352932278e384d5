import type { ValidationIssue } from '../../http/errors.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { WebhookError } from './errors.js';
import {
  countEndpoints,
  failPendingDeliveries,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  lockEndpointsOf,
  updateLiveEndpoint,
} from './repository.js';
import type { WebhookEndpointCreate, WebhookEndpointUpdate, WebhookEndpointView } from './schemas.js';
import type { ByIdUseCase, WebhookEndpointServiceDeps } from './endpoint-types.js';
import { generateWebhookSecret } from './signing.js';
import { checkWebhookUrl, privateTargetAllowed } from './url-guard.js';
import { endpointView, notFound } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * Endpoints an organization may have in one environment (ADR 0061): every event is delivered to each
 * endpoint that selects it, so their number bounds the deliveries one payment makes.
 */
export const WEBHOOK_ENDPOINT_LIMIT = 16;

async function checkUrl(
  deps: Pick<
    WebhookEndpointServiceDeps,
    'resolver' | 'allowPrivateTargets' | 'privateTargetOrigins' | 'lookupTimeoutMs'
  >,
  url: string,
  owner: Owner,
): Promise<ValidationIssue[]> {
  const check = await checkWebhookUrl(url, owner.environment, {
    resolver: deps.resolver,
    allowPrivate: privateTargetAllowed(url, deps),
    ...(deps.lookupTimeoutMs === undefined ? {} : { timeoutMs: deps.lookupTimeoutMs }),
  });
  return check.ok ? [] : [{ path: 'url', in: 'body', code: 'invalid_value', message: check.message }];
}

export async function createEndpoint(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  input: WebhookEndpointCreate,
): Promise<Result<WebhookEndpointView & { secret: string }, WebhookError>> {
  const { db, clock, box } = deps;
  const issues = await checkUrl(deps, input.url, owner);
  if (issues.length > 0) return err({ code: 'invalid_input', issues });
  const now = clock.now();
  const secret = generateWebhookSecret();
  const row = await db.transaction().execute(async (trx) => {
    await lockEndpointsOf(trx, owner);
    if ((await countEndpoints(trx, owner)) >= WEBHOOK_ENDPOINT_LIMIT) return undefined;
    return insertEndpoint(trx, {
      id: newId('we', now),
      organization_id: owner.organizationId,
      environment: owner.environment,
      url: input.url,
      description: input.description ?? null,
      enabled_events: input.enabledEvents,
      status: 'enabled',
      disabled_reason: null,
      secret_enc: box.seal(secret),
      created_by_key_id: owner.keyId ?? null,
      created_at: now,
      updated_at: now,
    });
  });
  if (!row) return err({ code: 'endpoint_limit', limit: WEBHOOK_ENDPOINT_LIMIT });
  return ok({ ...endpointView(row, now), secret });
}

export async function listEndpointsOf(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<{ data: WebhookEndpointView[]; nextCursor: string | null }, WebhookError>> {
  const { db, clock, cursors } = deps;
  const pages = cursors.for({
    list: 'webhook_endpoints',
    organizationId: owner.organizationId,
    environment: owner.environment,
  });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after && !after.ok) return after;
  const rows = await listEndpoints(db, owner, { limit, ...(after ? { after: after.value } : {}) });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const now = clock.now();
  return ok({
    data: page.map((row) => endpointView(row, now)),
    nextCursor: rows.length > limit && last ? pages.encode(last.created_at, last.id) : null,
  });
}

export const getEndpoint: ByIdUseCase<WebhookEndpointView> = async ({ db, clock }, owner, id) => {
  const row = await findEndpoint(db, owner, id);
  return row ? ok(endpointView(row, clock.now())) : notFound;
};

export const updateEndpoint: ByIdUseCase<WebhookEndpointView, [input: WebhookEndpointUpdate]> = async (
  deps,
  owner,
  id,
  input,
) => {
  if (input.url !== undefined) {
    if (!(await findEndpoint(deps.db, owner, id))) return notFound;
    const issues = await checkUrl(deps, input.url, owner);
    if (issues.length > 0) return err({ code: 'invalid_input', issues });
  }
  const now = deps.clock.now();
  const row = await updateLiveEndpoint(deps.db, owner, id, {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.enabledEvents !== undefined ? { enabled_events: input.enabledEvents } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.disabled === true ? { status: 'disabled', disabled_reason: 'merchant' } : {}),
    // Enabled again: a fresh start, so 5 more days of failure before it is disabled again.
    ...(input.disabled === false ? { status: 'enabled', disabled_reason: null, failing_since: null } : {}),
    updated_at: now,
  });
  return row ? ok(endpointView(row, now)) : notFound;
};

export const removeEndpoint: ByIdUseCase<{ id: string; deleted: true }> = async (
  { db, clock },
  owner,
  id,
) => {
  const now = clock.now();
  // Kept (soft-deleted) so that its delivery log stays readable for 30 days; it never receives again.
  // Its pending deliveries fail in the same transaction: none is left counted in the backlog.
  return db
    .transaction()
    .execute(async (trx): Promise<Result<{ id: string; deleted: true }, WebhookError>> => {
      const row = await updateLiveEndpoint(trx, owner, id, {
        deleted_at: now,
        status: 'disabled',
        disabled_reason: 'merchant',
        updated_at: now,
      });
      if (!row) return notFound;
      await failPendingDeliveries(trx, row.id, now);
      return ok({ id: row.id, deleted: true as const });
    });
};
