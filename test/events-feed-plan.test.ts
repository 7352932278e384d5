/**
 * `GET /v1/events?type=` must not read every event of the merchant to find a page of a rare kind: the
 * statement of the filtered feed is explained against a seeded table (many `charge.succeeded` events of
 * the merchant, a few `payout.failed`), analysed, and the kind must be a condition of the index the plan
 * reads (migration 0036), not a filter applied to each row the merchant's list index returns.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { statementRecorder } from './helpers/statements.js';

const SEEDED = 20_000;

const recorder = statementRecorder();

let t: TestGateway;
let raw: Database;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({
    env: { ROLES: 'api,sandbox-acquirer' },
    wrapDatabase: (database) => {
      raw = database;
      const db = database.db.withPlugin(recorder.plugin);
      return { ...database, db, readDb: db };
    },
  });
  merchant = await createMerchant(t, { featureFlags: ['events'] });
  await sql`
    INSERT INTO events (id, organization_id, environment, type, resource_id, payload, created_at)
    SELECT 'evt_seed' || i, ${merchant.organizationId}, 'sandbox',
           CASE WHEN i % 5000 = 0 THEN 'payout.failed' ELSE 'charge.succeeded' END,
           'seed_' || i,
           jsonb_build_object('id', 'evt_seed' || i, 'eventType',
                              CASE WHEN i % 5000 = 0 THEN 'payout.failed' ELSE 'charge.succeeded' END,
                              'createdAt', '2026-11-23T10:00:00.000Z', 'livemode', false, 'data', '{}'::jsonb),
           ${t.clock.now()}::timestamptz - i * interval '1 second'
    FROM generate_series(1, ${SEEDED}) AS i
  `.execute(raw.db);
  await sql`ANALYZE events`.execute(raw.db);
}, 120_000);
afterAll(async () => t?.close());

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe('GET /v1/events?type=', () => {
  it('reads a rare kind through an index on the kind', async () => {
    recorder.recording = true;
    let page: { data: Array<{ id: string; eventType: string }>; nextCursor: string | null };
    try {
      const res = await request<typeof page>(`${t.urls.sandboxApi}/v1/events?type=payout.failed&limit=2`, {
        headers: { 'x-api-key': merchant.keys.sandbox.secret },
      });
      expect(res.status, res.text).toBe(200);
      page = res.body;
    } finally {
      recorder.recording = false;
    }
    expect(page.data.map((event) => event.id)).toEqual(['evt_seed5000', 'evt_seed10000']);
    const statement = recorder.captured.find((s) => /from "events"/i.test(s.sql));
    if (!statement) throw new Error('the feed sent no statement on events');
    const result = await raw.db.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    const cell = result.rows[0]?.['QUERY PLAN'];
    const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
    const nodes = plan[0] ? nodesOf(plan[0].Plan) : [];
    expect(
      nodes.some((node) => /\btype\b/.test(node['Index Cond'] ?? '')),
      JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name'], node.Filter])),
    ).toBe(true);
  }, 60_000);
});
