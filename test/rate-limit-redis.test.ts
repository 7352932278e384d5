import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createFreshDatabase, dropDatabase } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication } from './helpers/http.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const started: TestGateway[] = [];
const databases: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
  for (const url of databases) await dropDatabase(url);
});

// Applications are counted in the database (issue 11 item 18), so instances of one deployment share the
// limit through the PostgreSQL they share, with or without Redis: two gateways on one database here
// (the local PostgreSQL server even in the PGlite pass, since PGlite cannot be shared).
describe('the public application limit of a deployment with REDIS_URL', () => {
  // Two whole gateways start inside the test: give them the time a loaded CI machine needs.
  it('is shared by two instances and by every listener of each', { timeout: 120_000 }, async () => {
    const sharedDatabaseUrl = await createFreshDatabase();
    databases.push(sharedDatabaseUrl);
    const prefix = `gw-test-${randomBytes(4).toString('hex')}:`;
    const env = {
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      APPLICATION_RATE_LIMIT_MAX: '4',
      APPLICATION_RATE_LIMIT_WINDOW_MS: '60000',
    };
    const a = await startTestGateway({ env, sharedDatabaseUrl });
    started.push(a);
    const b = await startTestGateway({ env, sharedDatabaseUrl });
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
  });
});
