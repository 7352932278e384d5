import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompiled } from '../src/db/precompiled.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/**
 * ADR 0060: a statement built with Kysely once per shape, then sent as its text. The charge creation's
 * statements themselves (the idempotency claim, the charge insert) run in every charge and idempotency
 * test, each shape checked on its first execution; this file proves the mechanism and its checks.
 */
describe('precompiled statements', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    await sql`create table precompiled_probe (id text primary key, note text, at timestamptz)`.execute(
      testDb.database.db,
    );
  });
  afterAll(async () => {
    await testDb.drop();
  });

  type Args = { id: string; note?: string; at: Date };
  const columns = (args: Args) =>
    (Object.keys(args) as Array<keyof Args>).filter((c) => args[c] !== undefined);
  const insert = (parameters: (args: Args) => unknown[]) =>
    precompiled<Args, { id: string; note: string | null; at: Date }>({
      name: 'probe insert',
      shapeOf: (args) => columns(args).join(','),
      build: (db, args) =>
        // The probe table is not in the schema's types.
        (db as unknown as Kysely<{ precompiled_probe: Args }>)
          .insertInto('precompiled_probe')
          .values(args)
          .returningAll() as never,
      parameters,
    });

  it('sends each shape as Kysely compiled it, with the values of each execution', async () => {
    const statement = insert((args) => columns(args).map((c) => args[c]));
    const at = new Date('2026-11-27T10:00:00.000Z');
    const rows = [
      (await statement.execute(testDb.database.db, { id: 'a', note: 'first', at })).rows[0],
      (await statement.execute(testDb.database.db, { id: 'b', at })).rows[0],
      (await statement.execute(testDb.database.db, { id: 'c', note: 'third', at })).rows[0],
    ];
    expect(rows.map((row) => [row?.id, row?.note, row?.at.toISOString()])).toEqual([
      ['a', 'first', at.toISOString()],
      ['b', null, at.toISOString()],
      ['c', 'third', at.toISOString()],
    ]);
    // Inside a transaction too, and its rollback undoes it.
    await testDb.database.db
      .transaction()
      .execute(async (trx) => {
        await statement.execute(trx, { id: 'd', note: 'rolled back', at });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const ids = await sql<{ id: string }>`select id from precompiled_probe order by id`.execute(
      testDb.database.db,
    );
    expect(ids.rows.map((row) => row.id)).toEqual(['a', 'b', 'c']);
  });

  it("refuses parameters that are not the compiled statement's, before anything is sent", async () => {
    const swapped = insert(({ id, note, at }) => (note === undefined ? [id, at] : [note, id, at]));
    const at = new Date();
    await expect(swapped.execute(testDb.database.db, { id: 'x', note: 'n', at })).rejects.toThrow(
      "probe insert: its parameters are not the compiled statement's",
    );
    // A shape that misses a variant of the text: the variant's first execution sends another count.
    const careless = precompiled<Args, { id: string }>({
      name: 'careless insert',
      shapeOf: () => 'one shape',
      build: (db, args) =>
        (db as unknown as Kysely<{ precompiled_probe: Args }>)
          .insertInto('precompiled_probe')
          .values(args)
          .returning('id') as never,
      parameters: (args) => columns(args).map((c) => args[c]),
    });
    await careless.execute(testDb.database.db, { id: 'y', note: 'fine', at });
    await expect(careless.execute(testDb.database.db, { id: 'z', at })).rejects.toThrow(
      'careless insert: shape one shape has 3 parameters',
    );
    const ids = await sql<{
      id: string;
    }>`select id from precompiled_probe where id in ('x', 'y', 'z')`.execute(testDb.database.db);
    expect(ids.rows.map((row) => row.id)).toEqual(['y']);
  });
});
