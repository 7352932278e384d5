/**
 * The ledger against a real database (PGlite, or PostgreSQL with DATABASE_URL): postings, the database's
 * own guarantees (balanced entries, append-only), exactly-once under concurrency, and properties over
 * random sequences of charges and refunds (issue 6 items 4 and 7, product decisions 21 to 23).
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kdb } from '../../db/database.js';
import { migrate, readMigrations } from '../../db/migrator.js';
import type { Environment, LedgerAccount, PaymentMethod } from '../../db/schema.js';
import { migrationsDir } from '../../paths.js';
import { createManualClock } from '../../shared/clock.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../../test/helpers/database.js';
import { createOrganization } from '../../../test/helpers/merchants.js';
import { feeRateIn } from '../organizations/fee-rates.js';
import { computeFee, defaultFeeRate } from './fees.js';
import { createLedger, type Ledger } from './service.js';
import type { ChargeForLedger, RefundForLedger } from './types.js';
import type { Owner } from '../../shared/owner.js';

const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
let testDb: TestDatabase;
let db: Kdb;
let ledger: Ledger;

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  await migrate(testDb.database, readMigrations(migrationsDir));
  db = testDb.database.db;
  ledger = createLedger({ db, clock, feesFor: feeRateIn });
});
afterAll(async () => testDb?.drop());

let sequence = 0;
const uniqueId = (prefix: string) => `${prefix}_test_${Date.now().toString(36)}_${(sequence += 1)}`;

async function newOwner(environment: Environment = 'sandbox'): Promise<Owner> {
  return { organizationId: await createOrganization(db, clock), environment };
}

function chargeOf(owner: Owner, amount: bigint | string, paymentMethod: PaymentMethod = 'credit_card_tr') {
  return {
    id: uniqueId('ch'),
    ...owner,
    amount: String(amount),
    paymentMethod,
    merchantReference: null,
  } satisfies ChargeForLedger;
}

function refundOf(charge: ChargeForLedger, amount: bigint | string): RefundForLedger {
  const { organizationId, environment } = charge;
  return {
    id: uniqueId('re'),
    chargeId: charge.id,
    organizationId,
    environment,
    amount: String(amount),
    merchantReference: charge.merchantReference,
  };
}

const postCharge = (charge: ChargeForLedger) =>
  db.transaction().execute((trx) => ledger.postChargeSucceeded(trx, charge));
const postRefund = (refund: RefundForLedger) =>
  db.transaction().execute((trx) => ledger.postRefund(trx, refund));

async function setFee(
  organizationId: string,
  method: PaymentMethod,
  basisPoints: number,
  fixedMinor: bigint,
) {
  await db
    .insertInto('fee_schedules')
    .values({
      organization_id: organizationId,
      payment_method: method,
      basis_points: basisPoints,
      fixed_minor: fixedMinor,
      updated_at: clock.now(),
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'payment_method'])
        .doUpdateSet({ basis_points: basisPoints, fixed_minor: fixedMinor }),
    )
    .execute();
}

async function postingsOf(sourceId: string): Promise<Array<{ account: LedgerAccount; amount: string }>> {
  return db
    .selectFrom('ledger_postings')
    .innerJoin('journal_entries', 'journal_entries.id', 'ledger_postings.entry_id')
    .select(['ledger_postings.account', 'ledger_postings.amount'])
    .where('journal_entries.source_id', '=', sourceId)
    .orderBy('ledger_postings.id')
    .execute();
}

async function entryCount(sourceId: string): Promise<number> {
  const rows = await db
    .selectFrom('journal_entries')
    .select('id')
    .where('source_id', '=', sourceId)
    .execute();
  return rows.length;
}

const pendingOf = async (owner: Owner) => (await ledger.balance(owner))[0]?.pending;

describe('postChargeSucceeded', () => {
  it("debits acquirer clearing with the gross, credits the merchant's net and the fee (default schedule)", async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 12_550n);
    // credit_card_tr by default: 3.50 % + 1.00 TRY; 439.25 rounds to 439.
    expect(await postCharge(charge)).toEqual({ gross: '12550', fee: '539', net: '12011', created: true });
    expect(await postingsOf(charge.id)).toEqual([
      { account: 'acquirer_clearing', amount: '12550' },
      { account: 'merchant_pending', amount: '-12011' },
      { account: 'fee_revenue', amount: '-539' },
    ]);
    expect(await ledger.balance(owner)).toEqual([
      { currency: 'TRY', pending: '12011', available: '0', inTransit: '0', reserve: '0', debt: '0' },
    ]);
  });

  it("uses the organization's own fee schedule for the payment method", async () => {
    const owner = await newOwner();
    await setFee(owner.organizationId, 'bank_transfer', 275, 50n);
    const split = await postCharge(chargeOf(owner, 20_000n, 'bank_transfer'));
    expect(split).toEqual({ gross: '20000', fee: '600', net: '19400', created: true });
    // Another method of the same organization without a row falls back to the default.
    const card = await postCharge(chargeOf(owner, 20_000n, 'credit_card_international'));
    const { fee } = computeFee(20_000n, defaultFeeRate('credit_card_international').basisPoints, 100n);
    expect(card.fee).toBe(fee.toString());
  });

  it('posts nothing the second time and returns the split recorded the first time', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 10_000n);
    const first = await postCharge(charge);
    // A fee change after success does not rewrite history.
    await setFee(owner.organizationId, 'credit_card_tr', 10_000, 0n);
    const second = await postCharge(charge);
    expect(second).toEqual({ ...first, created: false });
    expect(await postingsOf(charge.id)).toHaveLength(3);
    expect(await pendingOf(owner)).toBe(first.net);
  });

  it('leaves out zero postings: no fee, or a fee that takes the whole amount', async () => {
    const owner = await newOwner();
    await setFee(owner.organizationId, 'bank_transfer', 0, 0n);
    await setFee(owner.organizationId, 'credit_card_tr', 350, 100n);
    const free = chargeOf(owner, 500n, 'bank_transfer');
    expect(await postCharge(free)).toEqual({ gross: '500', fee: '0', net: '500', created: true });
    expect((await postingsOf(free.id)).map((p) => p.account)).toEqual([
      'acquirer_clearing',
      'merchant_pending',
    ]);

    const tiny = chargeOf(owner, 60n);
    expect(await postCharge(tiny)).toEqual({ gross: '60', fee: '60', net: '0', created: true });
    expect((await postingsOf(tiny.id)).map((p) => p.account)).toEqual(['acquirer_clearing', 'fee_revenue']);
    expect(await postCharge(tiny)).toEqual({ gross: '60', fee: '60', net: '0', created: false });
  });

  it('keeps amounts beyond 2^53 exact from the API to the balance', async () => {
    const owner = await newOwner();
    await setFee(owner.organizationId, 'credit_card_tr', 1, 0n);
    const amount = 2n ** 62n + 1n;
    const { fee, net } = computeFee(amount, 1, 0n);
    expect(await postCharge(chargeOf(owner, amount))).toEqual({
      gross: amount.toString(),
      fee: fee.toString(),
      net: net.toString(),
      created: true,
    });
    expect(await pendingOf(owner)).toBe(net.toString());
  });

  it('refuses to run outside a transaction, and malformed or conflicting reports', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 1_000n);
    // A Kdb is not a Trx: refused by the compiler (test/typed-transactions.test.ts), and at run time too.
    // @ts-expect-error the database where a transaction is required
    await expect(ledger.postChargeSucceeded(db, charge)).rejects.toThrow(/transaction/);
    for (const amount of ['0', '-5', '12.5', '1e3', ' 100', '9223372036854775808'])
      await expect(postCharge({ ...charge, amount })).rejects.toThrow(/amount/);
    await postCharge(charge);
    await expect(postCharge({ ...charge, amount: '1001' })).rejects.toThrow(/recorded with amount 1000/);
    const stranger = await newOwner();
    await expect(postCharge({ ...charge, organizationId: stranger.organizationId })).rejects.toThrow(
      /another organization/,
    );
    await expect(postCharge({ ...charge, environment: 'live' })).rejects.toThrow(/another organization/);
    expect(await entryCount(charge.id)).toBe(1);
  });

  it('writes one entry and three postings when 20 transactions report the same charge at once', async () => {
    const owner = await newOwner('live');
    const charge = chargeOf(owner, 98_765n);
    const results = await Promise.all(Array.from({ length: 20 }, () => postCharge(charge)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const { created: _created, ...split } = results[0] ?? { created: false };
    for (const result of results) expect(result).toMatchObject(split);
    expect(await entryCount(charge.id)).toBe(1);
    expect(await postingsOf(charge.id)).toHaveLength(3);
    expect(await pendingOf(owner)).toBe(results[0]?.net);
  });

  it('posts nothing when the calling transaction rolls back', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 5_000n);
    await expect(
      db.transaction().execute(async (trx) => {
        await ledger.postChargeSucceeded(trx, charge);
        throw new Error('the charge update failed');
      }),
    ).rejects.toThrow('the charge update failed');
    expect(await entryCount(charge.id)).toBe(0);
    expect((await postCharge(charge)).created).toBe(true);
  });
});

describe('postRefund', () => {
  it('debits merchant pending and credits acquirer clearing with the refunded amount; the fee stays', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 10_000n);
    const { net } = await postCharge(charge);
    const refund = refundOf(charge, 4_000n);
    const after = (BigInt(net) - 4_000n).toString();
    expect(await postRefund(refund)).toEqual({ created: true, pendingAfter: after });
    expect(await postingsOf(refund.id)).toEqual([
      { account: 'merchant_pending', amount: '4000' },
      { account: 'acquirer_clearing', amount: '-4000' },
    ]);
    expect(await pendingOf(owner)).toBe((BigInt(net) - 4_000n).toString());

    expect(await postRefund(refund)).toEqual({ created: false, pendingAfter: after });
    expect(await postingsOf(refund.id)).toHaveLength(2);
    await expect(postRefund({ ...refund, amount: '4001' })).rejects.toThrow(/another amount/);
  });

  it('records a refund once when 20 transactions report it at once', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 10_000n);
    await postCharge(charge);
    const refund = refundOf(charge, 10_000n);
    const results = await Promise.all(Array.from({ length: 20 }, () => postRefund(refund)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await postingsOf(refund.id)).toHaveLength(2);
    // A full refund leaves the merchant owing the fee: the fee is not returned. The debt is shown once.
    expect(await ledger.balance(owner)).toEqual([
      { currency: 'TRY', pending: '0', available: '0', inTransit: '0', reserve: '0', debt: '450' },
    ]);
  });
});

describe('balance', () => {
  it('is a zero TRY row before anything is posted', async () => {
    expect(await ledger.balance(await newOwner())).toEqual([
      { currency: 'TRY', pending: '0', available: '0', inTransit: '0', reserve: '0', debt: '0' },
    ]);
  });

  it('belongs to one organization and one environment', async () => {
    const sandbox = await newOwner('sandbox');
    const live: Owner = { ...sandbox, environment: 'live' };
    const other = await newOwner('sandbox');
    await setFee(sandbox.organizationId, 'credit_card_tr', 0, 0n);
    await setFee(other.organizationId, 'credit_card_tr', 0, 0n);
    await postCharge(chargeOf(sandbox, 111n));
    await postCharge(chargeOf(live, 222n));
    await postCharge(chargeOf(other, 333n));
    expect(await pendingOf(sandbox)).toBe('111');
    expect(await pendingOf(live)).toBe('222');
    expect(await pendingOf(other)).toBe('333');
  });

  it('reads available and in-transit from their accounts (as settlement will post them)', async () => {
    const owner = await newOwner('live');
    await db.transaction().execute(async (trx) => {
      const entry = await trx
        .insertInto('journal_entries')
        .values({
          organization_id: owner.organizationId,
          environment: owner.environment,
          kind: 'settlement_batch',
          source_id: uniqueId('batch'),
          currency: 'TRY',
          created_at: clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const posting = (account: LedgerAccount, amount: bigint) => ({
        entry_id: entry.id,
        organization_id: owner.organizationId,
        environment: owner.environment,
        account,
        currency: 'TRY' as const,
        amount,
        created_at: clock.now(),
      });
      await trx
        .insertInto('ledger_postings')
        .values([
          posting('acquirer_clearing', 1_000n),
          posting('merchant_available', -700n),
          posting('merchant_in_transit', -300n),
        ])
        .execute();
    });
    expect(await ledger.balance(owner)).toEqual([
      { currency: 'TRY', pending: '0', available: '700', inTransit: '300', reserve: '0', debt: '0' },
    ]);
  });
});

describe(`what the database itself guarantees (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  async function entryWith(owner: Owner, trx: Kdb, amounts: bigint[]): Promise<string> {
    const entry = await trx
      .insertInto('journal_entries')
      .values({
        organization_id: owner.organizationId,
        environment: owner.environment,
        kind: 'reversal',
        source_id: uniqueId('rev'),
        currency: 'TRY',
        created_at: clock.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (amounts.length > 0)
      await trx
        .insertInto('ledger_postings')
        .values(
          amounts.map((amount, index) => ({
            entry_id: entry.id,
            organization_id: owner.organizationId,
            environment: owner.environment,
            account: index === 0 ? ('acquirer_clearing' as const) : ('merchant_pending' as const),
            currency: 'TRY' as const,
            amount,
            created_at: clock.now(),
          })),
        )
        .execute();
    return entry.id;
  }

  const countEntries = async (owner: Owner) =>
    (
      await db
        .selectFrom('journal_entries')
        .select('id')
        .where('organization_id', '=', owner.organizationId)
        .execute()
    ).length;

  it('refuses, at commit, an entry whose postings do not sum to zero', async () => {
    const owner = await newOwner();
    let statementsSucceeded = false;
    await expect(
      db.transaction().execute(async (trx) => {
        await entryWith(owner, trx, [100n, -99n]);
        statementsSucceeded = true;
      }),
    ).rejects.toThrow(/unbalanced/);
    expect(statementsSucceeded).toBe(true);
    expect(await countEntries(owner)).toBe(0);
  });

  it('refuses an entry of fewer than two postings, and an entry with none', async () => {
    const owner = await newOwner();
    await expect(db.transaction().execute((trx) => entryWith(owner, trx, [100n]))).rejects.toThrow(
      /unbalanced/,
    );
    await expect(db.transaction().execute((trx) => entryWith(owner, trx, []))).rejects.toThrow(/unbalanced/);
    expect(await countEntries(owner)).toBe(0);
    // A balanced one goes through: the checks are not simply refusing everything.
    await db.transaction().execute((trx) => entryWith(owner, trx, [100n, -60n, -40n]));
    expect(await countEntries(owner)).toBe(1);
  });

  it('refuses a zero posting and a posting naming another owner than its entry', async () => {
    const owner = await newOwner();
    await expect(db.transaction().execute((trx) => entryWith(owner, trx, [0n, 0n]))).rejects.toThrow(
      /check constraint/,
    );
    const other = await newOwner();
    await expect(
      db.transaction().execute(async (trx) => {
        const entryId = await entryWith(owner, trx, [50n, -50n]);
        await trx
          .insertInto('ledger_postings')
          .values({
            entry_id: entryId,
            organization_id: other.organizationId,
            environment: owner.environment,
            account: 'merchant_pending',
            currency: 'TRY',
            amount: 1n,
            created_at: clock.now(),
          })
          .execute();
      }),
    ).rejects.toThrow(/foreign key/);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of entries and postings', async () => {
    const owner = await newOwner();
    const charge = chargeOf(owner, 1_000n);
    await postCharge(charge);
    const attempts = [
      sql`update journal_entries set source_id = 'ch_other' where source_id = ${charge.id}`,
      sql`delete from journal_entries where source_id = ${charge.id}`,
      sql`update ledger_postings set amount = amount * 2 where organization_id = ${owner.organizationId}`,
      sql`delete from ledger_postings where organization_id = ${owner.organizationId}`,
      sql`truncate ledger_postings`,
      sql`truncate journal_entries cascade`,
    ];
    for (const attempt of attempts) await expect(attempt.execute(db)).rejects.toThrow(/append-only/);
    expect(await postingsOf(charge.id)).toHaveLength(3);
  });
});

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
