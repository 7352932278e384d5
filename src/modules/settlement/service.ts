import type { Kdb } from '../../db/database.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { PayoutContents } from '../payouts/ports.js';
import { closedBetween, listPayoutContents } from './payout-contents.js';
import { release, releaseNow } from './release.js';
import type { SettlementLedger, SettlementService, SettlementSources } from './release-types.js';
import * as settlement from './repository.js';

export function createSettlementService(deps: {
  db: Kdb;
  clock: Clock;
  ledger: SettlementLedger;
  sources: SettlementSources;
  alerts?: AlertRaiser;
}): SettlementService {
  const payoutContents: PayoutContents = {
    attach: (trx, owner, payoutId) => settlement.attachUnpaid(trx, owner, payoutId),
    attachMany: (trx, payouts) => settlement.attachUnpaidMany(trx, payouts),
    detach: (trx, payoutId) => settlement.detach(trx, payoutId),
    list: (payoutId, page) => listPayoutContents(deps.db, payoutId, page),
  };

  return {
    release: (owner, options) => release(deps, owner, options),
    releaseNow: (owner) => releaseNow(deps, owner),
    payoutContents,
    payoutClosures: { between: (trx, from, to) => closedBetween(trx, from, to) },
  };
}
