import { sql } from 'kysely';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication, type ErrorBody } from './helpers/http.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

const listeners = ['sandboxApi', 'liveApi', 'web', 'operator'] as const;

function expectEnvelope(
  res: { status: number; headers: Headers; body: unknown },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  const body = res.body as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.requestId).toMatch(/^req_[0-9a-z]{29}$/);
  expect(res.headers.get('x-request-id')).toBe(body.error.requestId);
  expect(res.headers.get('content-type')).toContain('application/json');
  return body;
}

describe('the error envelope on every listener', () => {
  it.each(listeners)('unknown route on %s: 404 not_found', async (listener) => {
    expectEnvelope(await request(`${t.urls[listener]}/v1/nothing-here`), 404, 'not_found');
    expectEnvelope(
      await request(`${t.urls[listener]}/v1/applications`, { method: 'DELETE' }),
      404,
      'not_found',
    );
  });

  it.each(listeners)('health checks answer on %s', async (listener) => {
    const health = await request<{ status: string }>(`${t.urls[listener]}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    const ready = await request<{ status: string }>(`${t.urls[listener]}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});

describe('what the router refuses before any route runs', () => {
  it('a path parameter over 100 characters is 404 not_found in the envelope, without echoing the path', async () => {
    const long = 'x'.repeat(300);
    const res = await request(`${t.urls.sandboxApi}/v1/charges/${long}`, {
      headers: { 'x-api-key': 'sk_test_whatever' },
    });
    const body = expectEnvelope(res, 404, 'not_found');
    expect(JSON.stringify(body)).not.toContain(long);
  });
});

describe('bad bodies', () => {
  const url = () => `${t.urls.sandboxApi}/v1/applications`;

  it('malformed JSON: 400 validation_failed with an invalid_json issue', async () => {
    for (const raw of ['{bad', '{"companyName": "x",}', '[1,2', '\u0000']) {
      const body = expectEnvelope(
        await request(url(), { rawBody: raw, headers: { 'content-type': 'application/json' } }),
        400,
        'validation_failed',
      );
      expect(body.error.details?.issues).toEqual([
        { path: '', in: 'body', code: 'invalid_json', message: expect.any(String) },
      ]);
    }
  });

  it('an empty body declared as JSON: 400 validation_failed', async () => {
    const body = expectEnvelope(
      await request(url(), { method: 'POST', rawBody: '', headers: { 'content-type': 'application/json' } }),
      400,
      'validation_failed',
    );
    expect(body.error.details?.issues?.[0]?.code).toBe('invalid_json');
  });

  it('no body and no content type: 400 validation_failed (the body is required)', async () => {
    const body = expectEnvelope(await request(url(), { method: 'POST' }), 400, 'validation_failed');
    expect(body.error.details?.issues?.[0]).toMatchObject({ path: '', in: 'body' });
  });

  it('a prototype-poisoning body is refused, not merged', async () => {
    const raw = JSON.stringify(validApplication()).replace(/}$/, ',"__proto__":{"admin":true}}');
    expectEnvelope(
      await request(url(), { rawBody: raw, headers: { 'content-type': 'application/json' } }),
      400,
      'validation_failed',
    );
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ])('Content-Type %s: 415 unsupported_media_type', async (type) => {
    expectEnvelope(
      await request(url(), { rawBody: 'companyName=x', headers: { 'content-type': type } }),
      415,
      'unsupported_media_type',
    );
  });

  it('JSON with a charset parameter is accepted', async () => {
    const res = await request(url(), {
      rawBody: JSON.stringify(validApplication()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('a body over BODY_LIMIT_BYTES: 413 payload_too_large, before it is parsed', async () => {
    const raw = JSON.stringify(validApplication({ whySwitching: 'x'.repeat(65_536) }));
    expectEnvelope(
      await request(url(), { rawBody: raw, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
  });

  it('a Content-Length that lies is refused without a hang', async () => {
    const response = await rawHttp(
      t.urls.sandboxApi,
      'POST /v1/applications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":1,"b":2}',
    );
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(response).toContain('"validation_failed"');
  });
});

describe('internal errors', () => {
  it('answer 500 internal_error with no internals in the body, and log the detail with the request id', async () => {
    const broken = await startTestGateway();
    try {
      await sql`ALTER TABLE applications RENAME TO applications_gone`.execute(broken.testDb.database.db);
      const res = await request(`${broken.urls.sandboxApi}/v1/applications`, { body: validApplication() });
      const body = expectEnvelope(res, 500, 'internal_error');
      expect(res.text).not.toMatch(/applications|relation|stack|at \w+ \(|\.ts:|postgres|pglite/i);
      const logged = broken.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.reqId === body.error.requestId && line.level === 50);
      expect(logged).toBeDefined();
      expect(JSON.stringify(logged)).toMatch(/applications/);
    } finally {
      await broken.close();
    }
  });
});

describe('response headers', () => {
  it('every response carries a fresh request id, including successes', async () => {
    const a = await request(`${t.urls.sandboxApi}/healthz`);
    const b = await request(`${t.urls.sandboxApi}/healthz`);
    expect(a.headers.get('x-request-id')).toMatch(/^req_/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('a client-supplied request id is not trusted', async () => {
    const res = await request(`${t.urls.sandboxApi}/v1/nope`, {
      headers: { 'request-id': 'req_mine', 'x-request-id': 'req_mine' },
    });
    expect((res.body as ErrorBody).error.requestId).not.toBe('req_mine');
  });

  it('API responses forbid framing and content sniffing and carry a deny-all CSP', async () => {
    const res = await request(`${t.urls.sandboxApi}/v1/openapi.json`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('pages carry a strict CSP: own scripts and styles only, nothing inline', async () => {
    const res = await request(`${t.urls.web}/apply`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });
});

describe('logs', () => {
  it('redact API keys and never hold request bodies', async () => {
    await request(`${t.urls.sandboxApi}/v1/applications`, {
      body: validApplication({ contactEmail: 'secret-person@example.com' }),
      headers: { 'x-api-key': 'sk_test_shouldNeverBeLogged123' },
    });
    const text = t.logs.join('\n');
    expect(text).not.toContain('sk_test_shouldNeverBeLogged123');
    expect(text).not.toContain('secret-person@example.com');
  });
});

function rawHttp(base: string, payload: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(payload));
    let data = '';
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error('timed out'));
    });
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}
