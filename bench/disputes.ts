/**
 * The dispute figures of `npm run bench` (issue 37 item 8, `BENCH_ONLY=disputes`, docs/dispute-ratios.md
 * "Bench"), each on a database of its own, each beside a ceiling measured in the same run:
 * - `month`: the month's ratios of every merchant (10,000 merchants over 100,000 charges by default)
 *   beside the bare SQL that counts the same rows (bench/disputes-month.ts; target within 2x);
 * - `page`: one merchant's ratio page, `GET /v1/dispute-ratios` and `/dashboard/dispute-ratios`, for
 *   merchants of 1,000 to 100,000 card sales (bench/disputes-page.ts; target flat, within 1.5x);
 * - `webhooks`: disputes raised at 50 a second through the sandbox acquirer to the merchant's webhooks
 *   (bench/disputes-webhooks.ts; target p99 under 1 s, every webhook arrived).
 */
import { benchDisputesMonth } from './disputes-month.js';
import { benchDisputesPage } from './disputes-page.js';
import { benchDisputesWebhooks } from './disputes-webhooks.js';

export const DISPUTE_PARTS = ['month', 'page', 'webhooks'] as const;
export type DisputePart = (typeof DISPUTE_PARTS)[number];

export interface DisputesBenchOptions {
  parts: readonly DisputePart[];
  month: { charges: number; organizations: number; runs: number };
  page: { sizes: readonly number[] };
  webhooks: { rate: number; durationS: number };
}

export async function benchDisputes(options: DisputesBenchOptions) {
  const wanted = new Set(options.parts);
  return {
    ...(wanted.has('month')
      ? { 'month ratios of every merchant': await benchDisputesMonth(options.month) }
      : {}),
    ...(wanted.has('page') ? { 'one merchant’s ratio page': await benchDisputesPage(options.page) } : {}),
    ...(wanted.has('webhooks')
      ? { 'notification to ledger to webhook': await benchDisputesWebhooks(options.webhooks) }
      : {}),
  };
}
