import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { t, useTestGateway } from './helpers/suite.js';
import { request } from './helpers/http.js';

useTestGateway();

interface OpenApiDocument {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
}

describe('GET /operator/v1/openapi.json (issue 12 item 9)', () => {
  it('is served on the operator listener without a session, naming that listener', async () => {
    const res = await request<OpenApiDocument>(`${t.urls.operator}/operator/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers).toEqual([expect.objectContaining({ url: t.urls.operator })]);
  });

  it('passes the Redocly recommended ruleset with no error and no warning', async () => {
    const res = await request<OpenApiDocument>(`${t.urls.operator}/operator/v1/openapi.json`);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: res.text, absoluteRef: 'openapi.json', config });
    const summary = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`,
    );
    expect(summary).toEqual([]);
  });

  it('documents the operator API and nothing of the console pages', async () => {
    const { body } = await request<OpenApiDocument>(`${t.urls.operator}/operator/v1/openapi.json`);
    expect(body.paths['/operator/v1/applications/{id}/approve']?.post?.operationId).toBe(
      'postApplicationsIdApprove',
    );
    expect(body.paths['/operator/v1/session']?.post?.security).toEqual([]);
    expect(body.paths['/operator/v1/staff']?.post).toBeDefined();
    expect(body.paths['/operator/v1/alerts/{id}/acknowledge']?.post).toBeDefined();
    for (const route of Object.keys(body.paths)) expect(route).toMatch(/^\/operator\/v1\//);
    expect(body.paths['/operator/v1/openapi.json']).toBeUndefined();
  });

  it('states the 500-character reason the FX settings keep', async () => {
    const { body } = await request<OpenApiDocument>(`${t.urls.operator}/operator/v1/openapi.json`);
    const reasonOf = (route: string, method: 'post' | 'put') =>
      (
        body.paths[route]?.[method] as
          | { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }
          | undefined
      )?.requestBody?.content['application/json']?.schema.properties.reason;
    expect(reasonOf('/operator/v1/fx-rates', 'post')).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(reasonOf('/operator/v1/fx-rate-source', 'put')).toMatchObject({ minLength: 1, maxLength: 500 });
  });
});
