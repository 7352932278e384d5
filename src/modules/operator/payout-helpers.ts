import type { FastifyReply } from 'fastify';
import { toApiError } from '../../http/errors.js';
import type { Result } from '../../shared/result.js';
import { PAYOUT_ERRORS, type PayoutError } from '../payouts/errors.js';

/** What the payouts' JSON API and console pages share: the filters' values, refusals, the CSV answer. */
export const NETWORKS = ['tron', 'ethereum'] as const;
export const RAILS = ['sandbox_chain', 'treasury'] as const;

export function payoutValue<T>(result: Result<T, PayoutError>): T {
  if (result.ok) return result.value;
  throw toApiError(PAYOUT_ERRORS, result.error);
}

export function sendCsv(reply: FastifyReply, csv: string) {
  return reply.header('cache-control', 'no-store').type('text/csv; charset=utf-8').send(csv);
}
