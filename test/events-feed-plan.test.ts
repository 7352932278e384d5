/**
 * `GET /v1/events?type=` must not read every event of the merchant to find a page of a rare kind: the
 * statement of the filtered feed is explained against a seeded table (many `charge.succeeded` events of
 * the merchant, a few `payout.failed`), analysed, and the kind must be a condition of the index the plan
 * reads (migration 0036), not a filter applied to each row the merchant's list index returns.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { analyze, planOf, recordWhile, recordedSuite, t, raw } from './helpers/plans.js';

const SEEDED = 20_000;

let merchant: Merchant;

const recorder = recordedSuite({ env: { ROLES: 'api,sandbox-acquirer' }, readDb: true }, async () => {
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
  await analyze(raw.db, 'events');
});

describe('GET /v1/events?type=', () => {
  it('reads a rare kind through an index on the kind', async () => {
    const { result: page, statements } = await recordWhile(recorder, async () => {
      const res = await request<{
        data: Array<{ id: string; eventType: string }>;
        nextCursor: string | null;
      }>(`${t.urls.sandboxApi}/v1/events?type=payout.failed&limit=2`, {
        headers: { 'x-api-key': merchant.keys.sandbox.secret },
      });
      expect(res.status, res.text).toBe(200);
      return res.body;
    });
    expect(page.data.map((event) => event.id)).toEqual(['evt_seed5000', 'evt_seed10000']);
    const statement = statements.find((s) => /from "events"/i.test(s.sql));
    if (!statement) throw new Error('the feed sent no statement on events');
    const nodes = await planOf(raw.db, statement);
    expect(
      nodes.some((node) => /\btype\b/.test(node['Index Cond'] ?? '')),
      JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name'], node.Filter])),
    ).toBe(true);
  }, 60_000);
});
