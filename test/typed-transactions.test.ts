/**
 * Issue 12 item 6 (docs/decisions/0023-typed-transactions.md): writes that must be atomic with the
 * caller's other writes take `Trx`, so passing the database fails to compile. `tsc` checks this file:
 * each `@ts-expect-error` below fails the type-check the day the line it covers compiles.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Kdb, Trx } from '../src/db/database.js';
import type { AcquirerPayment } from '../src/modules/acquirer/types.js';
import type { ChargeRow } from '../src/modules/charges/model.js';
import type { ChargeRefunds } from '../src/modules/charges/service.js';
import * as charges from '../src/modules/charges/repository/charges.js';
import type { ChargeCompletionService } from '../src/modules/charges/completion.js';
import type { EventRecorder, EventSubscriber } from '../src/modules/events/service.js';
import type { LedgerService } from '../src/modules/ledger/service.js';
import * as refunds from '../src/modules/refunds/repository.js';

/** Never called: it exists for the compiler. */
export function passingTheDatabase(
  db: Kdb,
  trx: Trx,
  deps: {
    ledger: LedgerService;
    events: EventRecorder;
    fanOut: EventSubscriber;
    completion: ChargeCompletionService;
    chargeRefunds: ChargeRefunds;
  },
  row: ChargeRow,
  payment: AcquirerPayment,
): void {
  const charge = {
    id: 'ch_1',
    organizationId: 'org_1',
    environment: 'sandbox' as const,
    amount: '1',
    merchantReference: null,
  };
  const refund = { ...charge, id: 're_1', chargeId: 'ch_1' };
  const now = new Date();

  // @ts-expect-error the ledger posts only inside the caller's transaction
  void deps.ledger.postChargeSucceeded(db, { ...charge, paymentMethod: 'bank_transfer' });
  // @ts-expect-error the ledger posts only inside the caller's transaction
  void deps.ledger.postRefund(db, refund);
  const event = { ...charge, type: 'charge.succeeded' as const, resourceId: 'ch_1', data: {} };
  // @ts-expect-error an event is recorded in the transaction of the change it announces
  void deps.events.record(db, event);
  // @ts-expect-error the webhook fan-out runs in the event's transaction
  void deps.fanOut(db, { ...event, id: 'evt_1', createdAt: now });
  // @ts-expect-error a charge's status moves with its ledger entry and event, in one transaction
  void charges.transition(db, 'ch_1', ['pending'], 'succeeded');
  // @ts-expect-error the same for the writes that go with a status change
  void charges.update(db, 'ch_1', { updated_at: now });
  // @ts-expect-error a refund reserves its amount under the charge's row lock
  void deps.chargeRefunds.lockVisible(db, { organizationId: 'org_1', environment: 'sandbox' }, 'ch_1');
  // @ts-expect-error recorded in the refund's transaction
  void deps.chargeRefunds.recordRefund(db, row, '1', now);
  // @ts-expect-error a reported payment is applied under the charge's row lock, in its transaction
  void deps.completion.applyLocked(db, row, payment);
  // @ts-expect-error a refund row is locked inside the transaction that finishes it
  void refunds.lockById(db, 're_1');

  // A transaction is accepted everywhere, and so is it where the database is (single statements).
  void deps.ledger.postRefund(trx, refund);
  void deps.events.record(trx, event);
  void charges.transition(trx, 'ch_1', ['pending'], 'succeeded');
  void charges.findById(trx, 'ch_1');
  void refunds.transition(trx, 're_1', ['pending'], 'failed');
}

describe('typed transactions', () => {
  it('a database handle is not a transaction, a transaction is a database handle', () => {
    expectTypeOf<Kdb>().not.toExtend<Trx>();
    expectTypeOf<Trx>().toExtend<Kdb>();
    expect(typeof passingTheDatabase).toBe('function');
  });
});
