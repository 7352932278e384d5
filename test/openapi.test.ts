import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { t, useTestGateway } from './helpers/suite.js';
import { apiRequest } from './helpers/client.js';
import { request } from './helpers/http.js';
import { createMerchant } from './helpers/merchants.js';
import { assertConforms, conformanceProblems } from './helpers/openapi-conformance.js';

useTestGateway();

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

describe('the conformance check of the test client (test/helpers/openapi-conformance.ts)', () => {
  const charge = () => ({
    id: 'ch_x',
    amount: 'not a number',
  });

  it('passes a documented response and fails one whose body or status the document does not allow', async () => {
    const merchant = await createMerchant(t);
    const url = `${t.urls.sandboxApi}/v1/charges?limit=1`;
    const real = await request(url, { headers: { 'x-api-key': merchant.keys.sandbox.secret } });
    expect(real.status).toBe(200);
    expect(await conformanceProblems('GET', url, real)).toEqual([]);

    const wrongBody = { ...real, body: { data: [charge()], nextCursor: 5 } };
    expect((await conformanceProblems('GET', url, wrongBody)).length).toBeGreaterThan(0);
    await expect(assertConforms('GET', url, wrongBody)).rejects.toThrow(/does not conform/);

    const wrongStatus = { ...real, status: 418 };
    expect(await conformanceProblems('GET', url, wrongStatus)).toEqual([
      expect.stringMatching(/GET \/v1\/charges → 418: the status is not documented/),
    ]);
  });

  it('the typed client fails the test on a response that does not conform', async () => {
    // PUT is not an operation of /v1/charges: the gateway answers 404, which the check accepts ...
    const res = await apiRequest(t.urls, '/v1/charges', { method: 'PUT', body: {} });
    expect([404, 405]).toContain(res.status);
    // ... and a method the document does not have, answered with anything else, is refused.
    const problems = await conformanceProblems('DELETE', `${t.urls.sandboxApi}/v1/charges`, {
      ...res,
      status: 200,
    });
    expect(problems).toEqual([expect.stringMatching(/DELETE \/v1\/charges is not in the document/)]);
  });
});
