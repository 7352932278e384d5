/**
 * The ledger against a real database (PGlite, or PostgreSQL with DATABASE_URL): properties over random
 * sequences of charges and refunds, and the balance checkpoints (product decisions 21 to 23).
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Kdb } from '../../db/database.js';
import type { Environment, LedgerAccount, PaymentMethod } from '../../db/schema.js';
import { onPostgres } from '../../../test/helpers/database.js';
import { computeFee, defaultFeeRate } from './fees.js';
import type { ChargeForLedger } from './types.js';
import type { Owner } from '../../shared/owner.js';
import {
  chargeOf,
  db,
  ledger,
  newOwner,
  postCharge,
  postRefund,
  refundOf,
  setFee,
  useLedgerDatabase,
} from '../../../test/helpers/ledger.js';

useLedgerDatabase();

describe('properties over random sequences of charges and refunds', () => {
  type Step =
    | { kind: 'charge'; amount: bigint; method: PaymentMethod }
    | { kind: 'refund'; pick: number; amount: bigint }
    | { kind: 'replay'; pick: number }
    | { kind: 'checkpoint' };

  const amount = fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 100_000n }) },
    { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) }) },
  );
  const method = fc.constantFrom<PaymentMethod>(
    'bank_transfer',
    'credit_card_tr',
    'credit_card_international',
  );
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('charge' as const), amount, method }),
    fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), amount }),
    fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('checkpoint' as const) }),
  );
  const schedule = fc.option(
    fc.record({
      basisPoints: fc.integer({ min: 0, max: 10_000 }),
      fixedMinor: fc.bigInt({ min: 0n, max: 1_000_000_000n }),
    }),
  );

  it('every entry sums to zero, the balance is the sum of the postings, and pending = Σ net − Σ refunds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        schedule,
        fc.constantFrom<Environment>('sandbox', 'live'),
        async (steps, cardRate, environment) => {
          const owner = await newOwner(environment);
          if (cardRate)
            await setFee(owner.organizationId, 'credit_card_tr', cardRate.basisPoints, cardRate.fixedMinor);
          const rateOf = (m: PaymentMethod) =>
            m === 'credit_card_tr' && cardRate ? cardRate : defaultFeeRate(m);

          const charges: Array<{ charge: ChargeForLedger; net: bigint; refundable: bigint }> = [];
          const posted: Array<() => Promise<boolean>> = [];
          let expectedNet = 0n;
          let expectedRefunds = 0n;
          for (const s of steps) {
            if (s.kind === 'charge') {
              const charge = chargeOf(owner, s.amount, s.method);
              const rate = rateOf(s.method);
              const { net } = computeFee(s.amount, rate.basisPoints, rate.fixedMinor);
              const split = await postCharge(charge);
              expect(split).toEqual({
                gross: String(s.amount),
                fee: String(s.amount - net),
                net: String(net),
                created: true,
              });
              charges.push({ charge, net, refundable: s.amount });
              expectedNet += net;
              posted.push(async () => (await postCharge(charge)).created);
            } else if (s.kind === 'refund') {
              const target = charges[s.pick % Math.max(charges.length, 1)];
              if (!target || target.refundable === 0n) continue;
              const refundAmount = s.amount < target.refundable ? s.amount : target.refundable;
              target.refundable -= refundAmount;
              const refund = refundOf(target.charge, refundAmount);
              expect(await postRefund(refund)).toEqual({
                created: true,
                pendingAfter: String(expectedNet - expectedRefunds - refundAmount),
              });
              expectedRefunds += refundAmount;
              posted.push(async () => (await postRefund(refund)).created);
            } else if (s.kind === 'checkpoint') {
              // The balances' checkpoints move up to here (the `ledger-checkpoints` job, at any moment).
              await ledger.advanceCheckpoints();
            } else {
              const again = posted[s.pick % Math.max(posted.length, 1)];
              if (again) expect(await again()).toBe(false);
            }
          }

          const unbalanced = await db
            .selectFrom('ledger_postings')
            .select('entry_id')
            .where('organization_id', '=', owner.organizationId)
            .groupBy('entry_id')
            .having((eb) => eb.or([eb(eb.fn.sum('amount'), '<>', 0), eb(eb.fn.countAll(), '<', 2)]))
            .execute();
          expect(unbalanced).toEqual([]);

          const postings = await db
            .selectFrom('ledger_postings')
            .select(['account', 'amount', 'environment'])
            .where('organization_id', '=', owner.organizationId)
            .execute();
          const sum = (account?: LedgerAccount) =>
            postings.reduce(
              (t, p) => (account === undefined || p.account === account ? t + BigInt(p.amount) : t),
              0n,
            );
          expect(postings.every((p) => p.environment === environment)).toBe(true);
          expect(sum()).toBe(0n);
          expect(await ledger.balance(owner)).toEqual([
            {
              currency: 'TRY',
              pending: sum('merchant_pending') < 0n ? (-sum('merchant_pending')).toString() : '0',
              available: (-sum('merchant_available')).toString(),
              inTransit: (-sum('merchant_in_transit')).toString(),
              reserve: (-sum('merchant_reserve')).toString(),
              debt: sum('merchant_pending') > 0n ? sum('merchant_pending').toString() : '0',
            },
          ]);
          expect(-sum('merchant_pending')).toBe(expectedNet - expectedRefunds);
          expect(sum('acquirer_clearing') + sum('fee_revenue') + sum('merchant_pending')).toBe(0n);
          // And once every checkpoint covers it all: the same balance.
          const before = await ledger.balance(owner);
          await ledger.advanceCheckpoints();
          expect(await ledger.balance(owner)).toEqual(before);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});

describe(`balance checkpoints (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  /** The pending account's signed sum as the balance shows it: `pending`, or minus `debt`. */
  const pendingOf = async (owner: Owner) => {
    const [row] = await ledger.balance(owner);
    return row && (BigInt(row.pending) - BigInt(row.debt)).toString();
  };
  const postedPending = async (owner: Owner, on: Kdb = db) => {
    const row = await on
      .selectFrom('ledger_postings')
      .select(sql<string>`(coalesce(-sum(amount), 0))::text`.as('pending'))
      .where('organization_id', '=', owner.organizationId)
      .where('environment', '=', owner.environment)
      .where('account', '=', 'merchant_pending')
      .executeTakeFirstOrThrow();
    return row.pending;
  };

  it('counts a posting whose transaction commits after a checkpoint run that began while it was open', async () => {
    const owner = await newOwner();
    await postCharge(chargeOf(owner, 10_000n));
    await ledger.advanceCheckpoints();
    const late = chargeOf(owner, 5_000n);
    if (onPostgres) {
      // The posting's transaction is open while a checkpoint run, on another connection, moves the horizon.
      await db.transaction().execute(async (trx) => {
        await ledger.postChargeSucceeded(trx, late);
        // Another charge of the owner commits meanwhile, so the run moves this account's checkpoint.
        await postCharge(chargeOf(owner, 7_000n));
        await ledger.advanceCheckpoints();
        // Its own transaction sees its posting in the balance (a refund's `pendingAfter` needs it).
        const refunded = await ledger.postRefund(trx, refundOf(late, 100n));
        expect(refunded.pendingAfter).toBe(await postedPending(owner, trx));
      });
    } else {
      // PGlite has one session: no other transaction can run beside an open one, so the run comes after.
      await postCharge(late);
      await ledger.advanceCheckpoints();
    }
    expect(await pendingOf(owner)).toBe(await postedPending(owner));
    await ledger.advanceCheckpoints();
    expect(await pendingOf(owner)).toBe(await postedPending(owner));
    await postRefund(refundOf(late, 1_000n));
    expect(await pendingOf(owner)).toBe(await postedPending(owner));
  });

  it('keeps every balance equal to the sum of its postings while postings and checkpoint runs race', async () => {
    const owners = await Promise.all([newOwner(), newOwner('live')]);
    const writers = owners.flatMap((owner) =>
      Array.from({ length: 15 }, (_, i) => async () => {
        const charge = chargeOf(owner, BigInt(1_000 + i));
        await postCharge(charge);
        if (i % 3 === 0) await postRefund(refundOf(charge, 100n));
      }),
    );
    const checkpoints = Array.from(
      { length: 8 },
      () => () => ledger.advanceCheckpoints().then(() => undefined),
    );
    await Promise.all([...writers, ...checkpoints].map((run) => run()));
    for (const owner of owners) expect(await pendingOf(owner)).toBe(await postedPending(owner));
    await ledger.advanceCheckpoints();
    for (const owner of owners) expect(await pendingOf(owner)).toBe(await postedPending(owner));
  });

  it('reads only the postings since the checkpoint: the horizon moves past every finished transaction', async () => {
    const owner = await newOwner();
    for (let i = 0; i < 5; i += 1) await postCharge(chargeOf(owner, 2_000n));
    // The horizon is the server's oldest transaction still open, in any database: on the PostgreSQL pass
    // the other worker's tests share the server, and one of theirs may be open now. Once every
    // transaction older than these postings has finished, a run covers them; runs until then cover less.
    const checkpoint = () =>
      db
        .selectFrom('ledger_balance_checkpoints')
        .select(['balance', 'covers_before'])
        .where('organization_id', '=', owner.organizationId)
        .where('environment', '=', owner.environment)
        .where('account', '=', 'merchant_pending')
        .executeTakeFirst();
    const posted = await postedPending(owner);
    const deadline = Date.now() + 30_000;
    await ledger.advanceCheckpoints();
    while (Date.now() < deadline) {
      const row = await checkpoint();
      if (row && (-BigInt(row.balance)).toString() === posted) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await ledger.advanceCheckpoints();
    }
    const covered = await checkpoint();
    if (!covered) throw new Error('no checkpoint of the owner after 30 s of checkpoint runs');
    expect((-BigInt(covered.balance)).toString()).toBe(posted);
    const newer = await db
      .selectFrom('ledger_postings')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', owner.organizationId)
      .where(sql<boolean>`written_by >= ${covered.covers_before}::xid8`)
      .executeTakeFirstOrThrow();
    expect(Number(newer.n)).toBe(0);
  });
});
