import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication } from './helpers/http.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const started: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
});

describe('the public rate limit with REDIS_URL', () => {
  // Two whole gateways start inside the test: give them the time a loaded CI machine needs.
  it('is shared by two instances and by every listener of each', { timeout: 120_000 }, async () => {
    const prefix = `gw-test-${randomBytes(4).toString('hex')}:`;
    const env = {
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      APPLICATION_RATE_LIMIT_MAX: '4',
      APPLICATION_RATE_LIMIT_WINDOW_MS: '60000',
    };
    const a = await startTestGateway({ env });
    started.push(a);
    const b = await startTestGateway({ env });
    started.push(b);

    const targets = [
      a.urls.sandboxApi,
      b.urls.sandboxApi,
      a.urls.web,
      b.urls.liveApi,
      a.urls.sandboxApi,
      b.urls.web,
    ];
    const statuses: number[] = [];
    for (const base of targets)
      statuses.push((await request(`${base}/v1/applications`, { body: validApplication() })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);

    const redis = new Redis(redisUrl);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });
});
