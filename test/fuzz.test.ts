/**
 * Property-based fuzzing of every route (issue 11, item 14): the operations of the served OpenAPI
 * document (both APIs and the web listener's account endpoints), the operator API and the checkout and
 * dashboard pages get generated and mutated bodies, paths, queries and headers over real sockets. Any
 * 5xx, any error answer of a JSON route that is not the envelope, or any request that hangs fails the
 * run. It prints one JSON line with its counts. FUZZ_RUNS (default 1200) bounds the requests of the
 * property; FUZZ_SEED replays a run.
 */
import { createHmac } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEST_ENV, createActiveUser, WebClient } from './helpers/accounts.js';
import { onPostgres } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1200);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const REQUEST_TIMEOUT_MS = 10_000;

type JsonSchema = Record<string, unknown>;
type Listener = 'sandboxApi' | 'liveApi' | 'web' | 'operator';

interface Operation {
  listener: Listener;
  method: string;
  /** OpenAPI template: `/v1/charges/{id}`. */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: JsonSchema }>;
  body?: JsonSchema;
  /** Error answers of JSON routes must be the envelope; pages may answer HTML. */
  json: boolean;
  auth: 'key' | 'session' | 'operator' | 'none' | 'signature';
}

interface Counts {
  requests: number;
  fiveHundreds: number;
  nonEnvelope: number;
  hangs: number;
  byStatus: Record<string, number>;
  failures: string[];
}

let t: TestGateway;
let merchant: Merchant;
let dashboard: WebClient;
let operations: Operation[] = [];
const ids: Record<string, string[]> = { charge: [], endpoint: [], key: [], event: [], payment: [] };
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const counts: Counts = { requests: 0, fiveHundreds: 0, nonEnvelope: 0, hangs: 0, byStatus: {}, failures: [] };

beforeAll(async () => {
  t = await startTestGateway({ env: ACCOUNT_TEST_ENV });
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'events', 'payouts', 'wallets'] });
  const user = await createActiveUser(t);
  dashboard = new WebClient(t.urls.web);
  await dashboard.login(user.email, user.password);
  await seedResources();
  operations = [...(await documentedOperations()), ...undocumentedOperations()];
});
afterAll(async () => {
  agent.destroy();
  await t?.close();
});

async function seedResources(): Promise<void> {
  const headers = { 'x-api-key': merchant.keys.sandbox.secret };
  for (let index = 0; index < 2; index++) {
    const charge = await request<{ id: string; providerPaymentId: string }>(
      `${t.urls.sandboxApi}/v1/charges`,
      {
        body: validCharge(),
        headers,
      },
    );
    if (charge.status === 201) {
      ids.charge?.push(charge.body.id);
      ids.payment?.push(charge.body.providerPaymentId);
    }
  }
  const endpoint = await request<{ id: string }>(`${t.urls.sandboxApi}/v1/webhook-endpoints`, {
    body: { url: 'https://hooks.example/fuzz', events: ['charge.succeeded'] },
    headers,
  });
  if (endpoint.status === 201) ids.endpoint?.push(endpoint.body.id);
  ids.key?.push(merchant.keys.sandbox.id);
}

/** Every operation of the served document, on the listener its `servers` entry names (default: the API). */
async function documentedOperations(): Promise<Operation[]> {
  const document = (await (await fetch(`${t.urls.sandboxApi}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const servers = item.servers as Array<{ description?: string }> | undefined;
    const onWeb = servers?.some((server) => server.description === 'web') ?? false;
    for (const [method, value] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operation = value as {
        parameters?: Array<{ in: string; name: string; schema: JsonSchema }>;
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        security?: unknown[];
      };
      const parameters = operation.parameters ?? [];
      const publicRoute = Array.isArray(operation.security) && operation.security.length === 0;
      // The application form is served on the web listener as well as on both APIs.
      const listeners: Listener[] = onWeb
        ? ['web']
        : path === '/v1/applications'
          ? ['sandboxApi', 'liveApi', 'web']
          : ['sandboxApi', 'liveApi'];
      for (const listener of listeners) {
        result.push({
          listener,
          method: method.toUpperCase(),
          path,
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
          body: operation.requestBody?.content['application/json']?.schema,
          json: true,
          auth:
            path === '/webhooks/v1/payments'
              ? 'signature'
              : onWeb
                ? publicRoute
                  ? 'none'
                  : 'session'
                : publicRoute
                  ? 'none'
                  : 'key',
        });
      }
    }
  }
  return result;
}

/** The operator API and the pages, which the public document does not describe. */
function undocumentedOperations(): Operation[] {
  const reason = { type: 'object', properties: { reason: { type: 'string', maxLength: 500 } } };
  const op = (method: string, path: string, body?: JsonSchema): Operation => ({
    listener: 'operator',
    method,
    path,
    pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? ''),
    query: [{ name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
    ...(body ? { body } : {}),
    json: true,
    auth: 'operator',
  });
  const page = (method: string, path: string): Operation => ({
    listener: 'web',
    method,
    path,
    pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? ''),
    query: [{ name: 'lang', schema: { enum: ['en', 'tr'] } }],
    body: {
      type: 'object',
      properties: {
        holderName: { type: 'string' },
        cardNumber: { type: 'string' },
        name: { type: 'string' },
      },
    },
    json: false,
    auth: 'session',
  });
  return [
    op('GET', '/operator/v1/applications'),
    op('GET', '/operator/v1/applications/{id}'),
    op('POST', '/operator/v1/applications/{id}/reject', reason),
    op('POST', '/operator/v1/applications/{id}/start-review'),
    op('GET', '/operator/v1/organizations/{id}'),
    op('POST', '/operator/v1/organizations/{id}/freeze', reason),
    op('PUT', '/operator/v1/organizations/{id}/kyc-status', {
      type: 'object',
      properties: { kycStatus: { enum: ['REVIEWING', 'APPROVED', 'REJECTED'] } },
    }),
    op('PUT', '/operator/v1/organizations/{id}/fees/{paymentMethod}', {
      type: 'object',
      properties: { bps: { type: 'integer' }, fixed: { type: 'integer' } },
    }),
    op('GET', '/operator/v1/emails/{id}'),
    page('GET', '/c/{paymentId}'),
    page('GET', '/c/{paymentId}/status'),
    page('POST', '/c/{paymentId}/card'),
    page('GET', '/c/{paymentId}/return'),
    page('GET', '/dashboard'),
    page('GET', '/dashboard/webhooks/{id}'),
    page('POST', '/dashboard/api-keys'),
    page('GET', '/activate/{token}'),
    page('GET', '/reset-password/{token}'),
  ];
}

/** Percent-encodes the UTF-8 bytes of any string, lone surrogates included (as U+FFFD). */
function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---- generators -------------------------------------------------------------------------------

/** Text that has broken gateways: NUL, lone surrogates, control characters, card numbers, huge strings. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud83d',
    '\u202e\u0007',
    '4242 4242 4242 4242',
    '1795397000005',
    "'; DROP TABLE charges; --",
    '../../etc/passwd',
    '%00',
    '${7*7}',
    '<script>alert(1)</script>',
    '',
    ' ',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    '0x10',
    '-1',
    '1e309',
    'NaN',
    'null',
    '__proto__',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 100, max: 12_000 }).map((length) => 'x'.repeat(length)),
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => Number(n)),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 0.5, 1e21, true, null, [], {}),
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const format = schema.format as string | undefined;
  if (format === 'email') return fc.emailAddress();
  if (format === 'uri') return fc.webUrl({ validSchemes: ['https', 'http'] });
  if (format === 'date-time') return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 40, 80);
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((text) => text.length >= minLength && text.length <= maxLength);
    } catch {
      // A pattern fast-check cannot invert: plain strings, which validation mostly refuses.
    }
  }
  // Free text: now and then what has broken gateways, inside an otherwise valid body.
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }), weight: 4 },
    { arbitrary: nastyString, weight: 1 },
  );
}

/** A value of the schema (mostly valid), at bounded depth. */
function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0)
    return fc.oneof(...variants.map((variant) => fromSchema(variant, depth + 1)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types[0];
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({
        min: Math.max((schema.minimum as number | undefined) ?? -1000, -(2 ** 40)),
        max: Math.min((schema.maximum as number | undefined) ?? 1_000_000, 2 ** 40),
      });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items as JsonSchema | undefined, depth + 1), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? 4, 4),
      });
    case 'object':
    case undefined: {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, member] of Object.entries(properties)) record[name] = fromSchema(member, depth + 1);
      const optional = Object.keys(properties).filter((name) => !required.has(name));
      if (Object.keys(record).length === 0) {
        return fc.dictionary(
          fc.oneof(fc.string({ maxLength: 12 }), nastyString),
          fc.oneof(fc.jsonValue({ maxDepth: 2 }), nastyString),
          { maxKeys: 4 },
        );
      }
      return fc
        .record(record, { requiredKeys: [...required].filter((name) => name in record) })
        .chain((value) =>
          fc.subarray(optional).map((keep) => {
            const kept = value as Record<string, unknown>;
            for (const name of optional) if (!keep.includes(name)) delete kept[name];
            return kept;
          }),
        );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Replaces, removes or adds one member somewhere in a JSON value. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value === null || typeof value !== 'object') return anyJson;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  return fc.oneof(
    anyJson,
    fc
      .tuple(fc.string({ maxLength: 12 }), anyJson)
      .map(([name, member]) => ({ ...(value as object), [name]: member })),
    ...(entries.length > 0
      ? [
          fc.constantFrom(...entries.map(([name]) => name)).chain((name) =>
            fc.oneof(
              anyJson.map((member) => ({ ...(value as object), [name]: member })),
              fc.constant(Object.fromEntries(entries.filter(([other]) => other !== name))),
              mutate((value as Record<string, unknown>)[name]).map((member) => ({
                ...(value as object),
                [name]: member,
              })),
            ),
          ),
        ]
      : []),
  );
}

const rawBody = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
    'null',
    '""',
    '1e999',
  ),
  fc.integer({ min: 30, max: 6000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 30, max: 3000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'application/json;charset="UTF-8"',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset',
  '',
);

function pathValue(name: string): fc.Arbitrary<string> {
  const known =
    name === 'paymentId'
      ? ids.payment
      : name === 'id'
        ? [...(ids.charge ?? []), ...(ids.endpoint ?? []), ...(ids.key ?? [])]
        : [];
  return fc.oneof(
    ...(known && known.length > 0 ? [fc.constantFrom(...known).map(pct)] : []),
    fc.constantFrom(
      '%00',
      'ch_%00',
      '%ED%A0%80',
      '%C0%AF',
      '%FF',
      '%',
      '%2',
      '..',
      '%2e%2e',
      '%2F',
      'x'.repeat(150),
      'credit_card_tr',
      'ch_1',
    ),
    nastyString.map(pct),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }).map(pct),
  );
}

const queryJunk = fc.oneof(
  fc.constantFrom(
    '0x10',
    '1e1',
    '-1',
    '0',
    '101',
    '',
    '%00',
    '%FF',
    '1%00',
    '9'.repeat(40),
    'Infinity',
    '%2010',
    '%E2%82',
    '%',
  ),
  nastyString.map(pct),
);

interface Case {
  operation: Operation;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
}

function caseFor(operation: Operation): fc.Arbitrary<Case> {
  const params = fc.tuple(...operation.pathParams.map((name) => pathValue(name)));
  const query = fc.tuple(
    ...operation.query.map(({ name, schema }) =>
      fc.option(
        fc.oneof(
          fromSchema(schema).map((value) => `${pct(name)}=${pct(String(value))}`),
          queryJunk.map((value) => `${pct(name)}=${value}`),
        ),
        { nil: undefined },
      ),
    ),
    fc.option(
      queryJunk.map((value) => `${value}=${value}`),
      { nil: undefined },
    ),
  );
  const hasBody = operation.method !== 'GET' && operation.method !== 'DELETE';
  const body = hasBody
    ? fc.option(
        fc.oneof(
          fromSchema(operation.body).map((value) => JSON.stringify(value)),
          fromSchema(operation.body)
            .chain(mutate)
            .map((value) => JSON.stringify(value) ?? 'null'),
          rawBody,
        ),
        { nil: undefined, freq: 8 },
      )
    : fc.constant(undefined);
  return fc
    .record({
      params,
      query,
      body,
      contentType,
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom('x', 'k'.repeat(300), 'é')), {
        nil: undefined,
      }),
      authenticated: fc.integer({ min: 0, max: 9 }).map((n) => n < 8),
    })
    .map(({ params, query, body, contentType, idempotencyKey, authenticated }) => {
      let path = operation.path;
      operation.pathParams.forEach((name, index) => {
        path = path.replace(`{${name}}`, params[index] ?? 'x');
      });
      const headers: Record<string, string> = {};
      if (authenticated) Object.assign(headers, credentials(operation, body ?? ''));
      if (body !== undefined && contentType !== '') headers['content-type'] = contentType;
      if (idempotencyKey !== undefined && /^[\x20-\x7e]*$/.test(idempotencyKey))
        headers['x-idempotency-key'] = idempotencyKey;
      return {
        operation,
        path,
        query: query.filter((part) => part !== undefined).join('&'),
        headers,
        ...(body !== undefined ? { body } : {}),
      };
    });
}

function credentials(operation: Operation, body: string): Record<string, string> {
  switch (operation.auth) {
    case 'key':
      return {
        'x-api-key':
          operation.listener === 'liveApi' ? merchant.keys.live.secret : merchant.keys.sandbox.secret,
      };
    case 'session':
      return { cookie: [...dashboard.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    case 'operator':
      return { authorization: `Bearer ${t.gateway.operatorCliToken ?? ''}` };
    case 'signature': {
      const environment = operation.listener === 'liveApi' ? 'live' : 'sandbox';
      const secret = t.gateway.services.acquirers[environment]?.notificationSecret ?? '';
      const timestamp = String(Math.floor(t.clock.now().getTime() / 1000));
      const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
      return { 'acquirer-timestamp': timestamp, 'acquirer-signature': signature };
    }
    default:
      return {};
  }
}

// ---- the property -----------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(target: Case): Promise<Answer | 'hang'> {
  const base = new URL(t.urls[target.operation.listener]);
  const path = target.query === '' ? target.path : `${target.path}?${target.query}`;
  const body = target.body === undefined ? undefined : Buffer.from(target.body, 'utf8');
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: target.operation.method,
        path,
        headers: {
          ...target.headers,
          ...(body !== undefined ? { 'content-length': String(body.length) } : {}),
          'x-forwarded-for': '10.250.0.1',
        },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => {
      outgoing.destroy();
      resolve('hang');
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** An error answer of a JSON route is exactly the envelope, with the request id of its header. */
function isEnvelope(answer: Answer): boolean {
  if (!String(answer.headers['content-type'] ?? '').includes('application/json')) return false;
  try {
    const parsed = JSON.parse(answer.text) as { error?: Record<string, unknown> };
    const error = parsed.error;
    return (
      Object.keys(parsed).length === 1 &&
      typeof error?.code === 'string' &&
      typeof error.message === 'string' &&
      typeof error.requestId === 'string' &&
      error.requestId.startsWith('req_') &&
      // A replayed outcome (ADR 0003) carries the request id of the request that produced it.
      (answer.headers['x-request-id'] === error.requestId || answer.headers['idempotent-replayed'] === 'true')
    );
  } catch {
    return false;
  }
}

async function check(target: Case): Promise<boolean> {
  counts.requests++;
  const answer = await send(target).catch((error: unknown) => {
    // A connection the server reset or refused is a failure as much as a 5xx.
    counts.failures.push(`${target.operation.method} ${target.path.slice(0, 200)}: ${String(error)}`);
    return undefined;
  });
  const label =
    `${target.operation.listener} ${target.operation.method} ${target.path}?${target.query}`.slice(0, 300);
  if (answer === undefined) return false;
  if (answer === 'hang') {
    counts.hangs++;
    counts.failures.push(`hang: ${label}`);
    return false;
  }
  counts.byStatus[answer.status] = (counts.byStatus[answer.status] ?? 0) + 1;
  if (answer.status >= 500) {
    counts.fiveHundreds++;
    counts.failures.push(`${answer.status}: ${label} ${answer.text.slice(0, 200)}`);
    return false;
  }
  if (answer.status >= 400 && target.operation.json && !isEnvelope(answer)) {
    counts.nonEnvelope++;
    counts.failures.push(`not the envelope: ${label} ${answer.status} ${answer.text.slice(0, 200)}`);
    return false;
  }
  return true;
}

describe('fuzzing every route', () => {
  it('never answers 5xx, never leaves the envelope, never hangs', async () => {
    expect(operations.length).toBeGreaterThan(30);
    const started = Date.now();
    try {
      // Every operation at least once with a mostly valid request, then the property at random.
      for (const operation of operations) {
        const [sample] = fc.sample(caseFor(operation), { numRuns: 1, seed: SEED });
        if (sample) await check(sample);
      }
      const details = await fc.check(
        fc.asyncProperty(fc.constantFrom(...operations).chain(caseFor), async (target) => check(target)),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      if (details.failed)
        counts.failures.push(`the property failed (seed ${SEED}, path ${details.counterexamplePath ?? ''})`);
    } finally {
      process.stdout.write(
        `${JSON.stringify({
          fuzz: {
            database: onPostgres ? 'postgresql' : 'pglite',
            seed: SEED,
            operations: operations.length,
            requests: counts.requests,
            fiveHundreds: counts.fiveHundreds,
            nonEnvelope: counts.nonEnvelope,
            hangs: counts.hangs,
            seconds: Math.round((Date.now() - started) / 1000),
            byStatus: counts.byStatus,
          },
        })}\n`,
      );
    }
    expect(counts.failures.map((failure) => failure.slice(0, 400))).toEqual([]);
    expect(counts.fiveHundreds).toBe(0);
  }, 120_000);
});
