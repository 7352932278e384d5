import type {
  FastifyReply,
  FastifyRequest,
  onSendAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import { CARD_NUMBER_MESSAGE } from './card-data.js';
import { containsCardNumber } from '../shared/card-numbers.js';
import { ApiError } from './errors.js';
import type { Claim, IdempotencyStore } from './idempotency-store.js';
import type { OutcomeSeam } from '../shared/idempotent-write.js';
import type { SecretBox } from '../shared/secret-box.js';

export const IDEMPOTENCY_HEADER = 'x-idempotency-key';

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** The request header of every idempotent write, for route schemas (and so the OpenAPI document). */
export const IdempotencyHeaderSchema = {
  type: 'object',
  properties: {
    'x-idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Optional; the same key and body from the same API key return the original response for 24 hours ' +
        '(a replayed error carries the new request id). Another API key that sends the same idempotency ' +
        'key gets 409 `idempotency_key_reuse`, never the original response.',
    },
  },
} as const;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

/**
 * Where an idempotency key lives and who may see its outcome again. `namespace`: the organization and
 * environment of the caller, or a public scope. `caller`: the API key (`key:<id>`) whose outcome it is;
 * another key of the same namespace that sends the same idempotency key is refused, never replayed to.
 * Null only for public routes, where a replay returns the stranger's own request.
 */
export interface IdempotencyScope {
  namespace: string;
  caller: string | null;
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  clock: Clock;
  scopeOf: (request: FastifyRequest) => IdempotencyScope;
}

/**
 * Final outcomes are remembered and replayed: successes, business refusals (4xx) and an acquirer's
 * rejection. Retryable failures (5xx, 429, 408) are forgotten so that the retry runs again, and so is
 * `duplicate_request`: it says another request of the same creation is still running (a retry that took
 * over a lapsed claim while the first request was still at the acquirer), which is over once that one
 * ends. Remembered, it would be replayed for 24 hours in place of the charge that request created.
 */
export function isStorableOutcome(status: number, body: string): boolean {
  if (status >= 200 && status < 300) return true;
  if (status === 408 || status === 429) return false;
  if (status === 409 && body.includes('"duplicate_request"')) return false;
  // A route's own `idempotency_key_reuse` (a charge that holds the key was made by another request, ADR
  // 0052) answers this body, not the key: remembered, it would be replayed to the request that owns the
  // key when it retries with its own body.
  if (status === 409 && body.includes('"idempotency_key_reuse"')) return false;
  if (status >= 400 && status < 500) return true;
  return status === 502 && body.includes('"provider_rejected"');
}

/** Route hooks: claim the key before validation, replay or refuse conflicts, record the outcome. */
export function idempotencyHooks(options: IdempotencyOptions): {
  preValidation: preValidationAsyncHookHandler;
  onSend: onSendAsyncHookHandler<unknown>;
} {
  const preValidation = async function (request: FastifyRequest, reply: FastifyReply) {
    request.idempotencyClaim = null;
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || !KEY_FORMAT.test(key)) {
      throw ApiError.validation([
        {
          path: 'X-Idempotency-Key',
          in: 'header',
          code: 'invalid_format',
          message: 'must be 1 to 255 printable ASCII characters without spaces',
        },
      ]);
    }
    // The key is stored (idempotency_keys, and on the charge or payout it made): a card number in it would
    // be card data in the database in clear (decision 16), so it is refused like one in a body.
    if (containsCardNumber(key)) {
      throw ApiError.validation(
        [{ path: 'X-Idempotency-Key', in: 'header', code: 'invalid_value', message: CARD_NUMBER_MESSAGE }],
        'The request carries what looks like a card number.',
      );
    }
    // Authentication and authorization (key, environment, IP, scope, flag, freeze) ran in onRequest,
    // before this hook: a caller that may not make the request never reaches a replay.
    const { namespace: scope, caller } = options.scopeOf(request);
    const path = request.url.split('?')[0] ?? request.url;
    const fingerprint = options.store.fingerprints.of(
      `${request.method} ${path}\n${canonicalJson(request.body)}`,
    );
    const outcome = await options.store.claim({
      scope,
      key,
      fingerprint: fingerprint.value,
      alsoMatches: fingerprint.forms,
      caller,
      now: options.clock.now(),
    });
    switch (outcome.kind) {
      case 'claimed':
        request.idempotencyClaim = outcome.claim;
        return;
      case 'replay':
        return reply
          .code(outcome.status)
          .header('idempotent-replayed', 'true')
          .type('application/json; charset=utf-8')
          .send(withRequestId(outcome.body, outcome.status, request.id));
      case 'other_caller':
        throw ApiError.idempotencyKeyReuse('other_api_key');
      case 'mismatch':
        throw ApiError.idempotencyKeyReuse('other_body');
      case 'in_flight':
        throw new ApiError(
          'duplicate_request',
          'A request with this idempotency key is still being processed; retry after it completes.',
        );
    }
  };

  const onSend = async function (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotencyClaim;
    if (claim === null) return payload;
    request.idempotencyClaim = null;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      if (body !== null && isStorableOutcome(reply.statusCode, body)) {
        await options.store.complete(claim, { status: reply.statusCode, body });
      } else {
        await options.store.release(claim);
      }
    } catch (error) {
      // The response still goes out; the claim lapses after its lock and a retry runs again.
      request.log.error({ err: error }, 'could not record the idempotent outcome');
    }
    return payload;
  };

  return { preValidation, onSend };
}

/**
 * A replayed error carries the id of the request that receives it, in `error.requestId` as in
 * `X-Request-Id`: the two always agree, and support can find the request the client actually made.
 */
function withRequestId(body: string, status: number, requestId: string): string {
  if (status < 400) return body;
  const parsed = jsonObject(body);
  const error = parsed?.error;
  if (error === null || typeof error !== 'object') return body;
  return JSON.stringify({ ...parsed, error: { ...error, requestId } });
}

const SEALED = 'sealed:';

/**
 * The idempotency `onSend` of a route whose answer carries a secret once (an API key, a webhook secret).
 * A replay must return the same secret (a client that lost the response would otherwise hold a secret it
 * never saw), but the stored outcome must not hold it in clear: the top-level `secret` is sealed with the
 * secret box (AES-256-GCM) before it is stored, and opened on replay. Use it with `idempotencyHooks`'
 * `preValidation` in place of its `onSend`.
 */
export function sealedSecretOnSend(options: {
  store: IdempotencyStore;
  box: SecretBox;
}): onSendAsyncHookHandler<unknown> {
  const { store, box } = options;
  return async function (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (reply.getHeader('idempotent-replayed') === 'true') {
      if (body === null) return payload;
      return mapSecret(body, (secret) =>
        secret.startsWith(SEALED) ? box.open(secret.slice(SEALED.length)) : secret,
      );
    }
    const claim = request.idempotencyClaim;
    if (claim === null) return payload;
    request.idempotencyClaim = null;
    try {
      if (body !== null && isStorableOutcome(reply.statusCode, body)) {
        const sealedBody = mapSecret(body, (secret) => `${SEALED}${box.seal(secret)}`);
        await store.complete(claim, { status: reply.statusCode, body: sealedBody });
      } else {
        await store.release(claim);
      }
    } catch (error) {
      request.log.error({ err: error }, 'could not record the idempotent outcome');
    }
    return payload;
  };
}

/** The JSON body with its top-level `secret` transformed; other bodies (errors) unchanged. */
function mapSecret(body: string, transform: (secret: string) => string): string {
  const record = jsonObject(body);
  if (typeof record?.secret !== 'string') return body;
  return JSON.stringify({ ...record, secret: transform(record.secret) });
}

/** The body parsed when it is a JSON object; undefined for other JSON and for text that is not JSON. */
function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The outcome seam of a request that holds an idempotency claim (undefined without one): the answer's
 * bytes come from the route's response serialiser for `status`, and once the service has stored them
 * with its write, `storedBody()` gives them back (the route then ends the request's claim and sends them).
 */
export function claimedOutcome<V>(
  request: FastifyRequest,
  reply: FastifyReply,
  store: IdempotencyStore,
  status: number,
): { seam: OutcomeSeam<V>; storedBody: () => string | undefined } | undefined {
  const claim = request.idempotencyClaim;
  if (claim === null) return undefined;
  let storedBody: string | undefined;
  return {
    seam: {
      serialize: (view) => {
        const body = reply.code(status).serialize(view);
        return typeof body === 'string' ? body : Buffer.from(body as Buffer).toString('utf8');
      },
      storeWith: async (stored, companion) => {
        const done = await store.completeWith(claim, stored, companion);
        if (done.rows.length > 0) storedBody = stored.body;
        return done;
      },
    },
    storedBody: () => storedBody,
  };
}
