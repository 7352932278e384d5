import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

interface OpenApiDocument {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<string, { operationId?: string; security?: unknown[]; responses: Record<string, unknown> }>
  >;
}

describe('GET /v1/openapi.json', () => {
  it.each(['sandboxApi', 'liveApi'] as const)(
    'is served on the %s listener without a key, naming that listener',
    async (listener) => {
      const res = await request<OpenApiDocument>(`${t.urls[listener]}/v1/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(res.body.servers).toEqual([expect.objectContaining({ url: t.urls[listener] })]);
    },
  );

  it('passes the Redocly recommended ruleset with no error and no warning', async () => {
    const res = await request<OpenApiDocument>(`${t.urls.sandboxApi}/v1/openapi.json`);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: res.text, absoluteRef: 'openapi.json', config });
    const summary = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`,
    );
    expect(summary).toEqual([]);
  });

  it('documents every public route with its responses, and POST /v1/applications without security', async () => {
    const { body } = await request<OpenApiDocument>(`${t.urls.sandboxApi}/v1/openapi.json`);
    const create = body.paths['/v1/applications']?.post;
    expect(create?.operationId).toBe('createApplication');
    expect(create?.security).toEqual([]);
    expect(Object.keys(create?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '409', '413', '415', '429']),
    );
    // Health checks and the document itself are operational, not part of the API contract.
    expect(body.paths['/healthz']).toBeUndefined();
    expect(body.paths['/v1/openapi.json']).toBeUndefined();
  });

  it('documents the account self-service endpoints of the web listener, each naming that server', async () => {
    const { body } = await request<
      OpenApiDocument & { paths: Record<string, { servers?: Array<{ url: string }> }> }
    >(`${t.urls.sandboxApi}/v1/openapi.json`);
    for (const route of [
      '/v1/auth/forgot-password',
      '/v1/auth/reset-password',
      '/v1/auth/change-password',
      '/v1/auth/2fa/enroll',
      '/v1/auth/2fa/verify',
      '/v1/auth/2fa/disable',
    ]) {
      const item = body.paths[route] as {
        servers?: Array<{ url: string }>;
        post?: { operationId?: string; security?: unknown };
      };
      expect(item, route).toBeDefined();
      expect(item.servers).toEqual([expect.objectContaining({ url: t.urls.web })]);
      expect(item.post?.operationId).toMatch(/^account[A-Z]/);
    }
    const forgot = body.paths['/v1/auth/forgot-password'] as { post?: { security?: unknown } };
    expect(forgot.post?.security).toEqual([]);
    const enroll = body.paths['/v1/auth/2fa/enroll'] as { post?: { security?: unknown } };
    expect(enroll.post?.security).toEqual([{ DashboardSession: [] }]);
    // Pages of the web listener are not API operations.
    expect(body.paths['/login']).toBeUndefined();
    expect(body.paths['/apply']).toBeUndefined();
  });
});
