/**
 * The ledger against a real database (PGlite, or PostgreSQL with DATABASE_URL): postings, the database's
 * own guarantees (balanced entries, append-only) and exactly-once under concurrency (product decisions 21
 * to 23). Properties over random sequences and the balance checkpoints: service-properties.test.ts.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Trx } from '../../db/database.js';
import type { LedgerAccount } from '../../db/schema.js';
import { onPostgres } from '../../../test/helpers/database.js';
import { computeFee, defaultFeeRate } from './fees.js';
import type { Owner } from '../../shared/owner.js';
import {
  chargeOf,
  clock,
  db,
  entryCount,
  ledger,
  newOwner,
  pendingOf,
  postCharge,
  postingsOf,
  postRefund,
  refundOf,
  setFee,
  uniqueId,
  useLedgerDatabase,
} from '../../../test/helpers/ledger.js';

useLedgerDatabase();

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
  async function entryWith(owner: Owner, trx: Trx, amounts: bigint[]): Promise<string> {
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
