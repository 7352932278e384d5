/**
 * Issue 11 item 18: the public application limit counts accepted applications only (not 400s, not
 * idempotent replays, not 429s), per client address, across every listener that takes applications,
 * without Redis. Time is the injected clock: each test starts a fresh window by moving it on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication, type ErrorBody } from './helpers/http.js';

const MAX = 2;
const WINDOW_MS = 60_000;

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({
    env: {
      ROLES: 'api,sandbox-acquirer',
      APPLICATION_RATE_LIMIT_MAX: String(MAX),
      APPLICATION_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    },
  });
});
afterAll(async () => t?.close());
beforeEach(() => {
  t.clock.advance(WINDOW_MS + 1000);
});

type Listener = 'sandboxApi' | 'liveApi' | 'web';

const submit = (body: unknown, { on = 'sandboxApi', key }: { on?: Listener; key?: string } = {}) =>
  request<{ id: string } & ErrorBody>(`${t.urls[on]}/v1/applications`, {
    body,
    headers: key === undefined ? {} : { 'x-idempotency-key': key },
  });

function expectLimited(res: Awaited<ReturnType<typeof submit>>) {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe('too_many_requests');
  expect(res.body.error.requestId).toMatch(/^req_/);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
}

describe('the application limit', () => {
  it('does not count refused bodies (400)', async () => {
    for (let i = 0; i < MAX * 3; i += 1) {
      const refused = await submit(validApplication({ monthlyVolumeUSD: 10 }));
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }
    for (let i = 0; i < MAX; i += 1) expect((await submit(validApplication())).status).toBe(201);
    expectLimited(await submit(validApplication()));
  });

  it('does not count idempotent replays, which still answer after the limit is reached', async () => {
    const body = validApplication();
    const first = await submit(body, { key: 'apply-once' });
    expect(first.status).toBe(201);
    for (let i = 0; i < MAX * 2; i += 1) {
      const replay = await submit(body, { key: 'apply-once' });
      expect(replay.status).toBe(201);
      expect(replay.body.id).toBe(first.body.id);
    }
    expect((await submit(validApplication())).status).toBe(201);
    expectLimited(await submit(validApplication()));
    const replayAfterLimit = await submit(body, { key: 'apply-once' });
    expect(replayAfterLimit.status).toBe(201);
    expect(replayAfterLimit.body.id).toBe(first.body.id);
  });

  it('does not count refused attempts: a 429 neither extends the window nor uses up the next one', async () => {
    for (let i = 0; i < MAX; i += 1) expect((await submit(validApplication())).status).toBe(201);
    for (let i = 0; i < 5; i += 1) expectLimited(await submit(validApplication()));
    t.clock.advance(WINDOW_MS + 1);
    for (let i = 0; i < MAX; i += 1) expect((await submit(validApplication())).status).toBe(201);
    expectLimited(await submit(validApplication()));
  });

  it('counts one address across the sandbox, live and web listeners, without Redis', async () => {
    expect((await submit(validApplication(), { on: 'sandboxApi' })).status).toBe(201);
    expect((await submit(validApplication(), { on: 'liveApi' })).status).toBe(201);
    expectLimited(await submit(validApplication(), { on: 'web' }));
    expectLimited(await submit(validApplication(), { on: 'sandboxApi' }));
  });

  it('lets concurrent submissions from one address through only up to the limit', async () => {
    const listeners: Listener[] = ['sandboxApi', 'liveApi', 'web'];
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => submit(validApplication(), { on: listeners[i % 3] as Listener })),
    );
    expect(results.filter((res) => res.status === 201)).toHaveLength(MAX);
    expect(results.filter((res) => res.status === 429)).toHaveLength(9 - MAX);
  });

  it('tells in Retry-After when the oldest counted application leaves the window', async () => {
    expect((await submit(validApplication())).status).toBe(201);
    t.clock.advance(20_000);
    expect((await submit(validApplication())).status).toBe(201);
    t.clock.advance(10_000);
    const limited = await submit(validApplication());
    expectLimited(limited);
    expect(Number(limited.headers.get('retry-after'))).toBe(30);
    t.clock.advance(30_000);
    expect((await submit(validApplication())).status).toBe(201);
  });
});
