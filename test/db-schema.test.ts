import path from 'node:path';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir, projectRoot } from '../src/paths.js';
import { createTestDatabase, onPostgres, type TestDatabase } from './helpers/database.js';

/**
 * `src/db/schema.ts` (the Kysely `DB` interface) against the database the migrations build: every table,
 * every column, its nullability and its type, read from `information_schema` of a freshly migrated
 * database (PGlite in the PGlite pass, PostgreSQL in the PostgreSQL pass). Everything is derived from the
 * files: the migrations as they are, the interface as the TypeScript compiler reads it.
 */

type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'bigint' | 'array' | 'buffer' | 'json';
interface DeclaredColumn {
  kinds: Set<Kind>;
  nullable: boolean | 'either';
  text: string;
}

/** The select type of every column of every table of `DB`, as the compiler resolves them. */
function declaredSchema(): Map<string, Map<string, DeclaredColumn>> {
  const file = path.join(projectRoot, 'src/db/schema.ts');
  const program = ts.createProgram([file], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error('src/db/schema.ts not found');
  const db = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DB',
  );
  if (db === undefined) throw new Error('no DB interface in src/db/schema.ts');

  const kindOf = (type: ts.Type): Kind => {
    if (type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.TemplateLiteral)) return 'string';
    if (type.flags & ts.TypeFlags.NumberLike) return 'number';
    if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    if (type.flags & ts.TypeFlags.BigIntLike) return 'bigint';
    if (checker.isArrayType(type) || checker.isTupleType(type)) return 'array';
    const name = type.getSymbol()?.getName();
    if (name === 'Date') return 'Date';
    if (name === 'Buffer' || name === 'Uint8Array') return 'buffer';
    return 'json';
  };

  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const table of checker.getTypeAtLocation(db).getProperties()) {
    const columns = new Map<string, DeclaredColumn>();
    const tableType = checker.getTypeOfSymbol(table);
    for (const column of tableType.getProperties()) {
      let type = checker.getTypeOfSymbol(column);
      // Kysely's ColumnType<S, I, U> (and Generated<T>) carry the select type in `__select__`.
      const select = type.getProperty('__select__');
      if (select !== undefined) type = checker.getTypeOfSymbol(select);
      const parts = type.isUnion() ? type.types : [type];
      // `unknown` (a JSON column's value) says nothing about null: it fits either nullability.
      const nullable = parts.some((p) => p.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any))
        ? 'either'
        : parts.some((p) => p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
      const kinds = new Set(
        parts.filter((p) => !(p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).map(kindOf),
      );
      columns.set(column.getName(), { kinds, nullable, text: checker.typeToString(type) });
    }
    tables.set(table.getName(), columns);
  }
  return tables;
}

/** The TypeScript kinds a value of a PostgreSQL type arrives as (node-postgres and PGlite alike). */
function allowedKinds(dataType: string, udtName: string): Kind[] {
  if (dataType === 'ARRAY') return ['array'];
  switch (udtName) {
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'uuid':
    case 'citext':
    case 'inet':
    case 'cidr':
      return ['string'];
    case 'int8':
    case 'numeric':
    case 'xid8':
      return ['string'];
    case 'int2':
    case 'int4':
    case 'float4':
    case 'float8':
      return ['number'];
    case 'bool':
      return ['boolean'];
    case 'timestamptz':
    case 'timestamp':
      return ['Date'];
    case 'date':
      return ['Date', 'string'];
    case 'json':
    case 'jsonb':
      return ['json', 'array', 'string', 'number', 'boolean'];
    case 'bytea':
      return ['buffer'];
    default:
      // An enum or domain (USER-DEFINED) arrives as text.
      return dataType === 'USER-DEFINED' ? ['string'] : [];
  }
}

interface ActualColumn {
  table_name: string;
  column_name: string;
  is_nullable: string;
  data_type: string;
  udt_name: string;
}

let testDb: TestDatabase;
let actual: ActualColumn[];
let declared: Map<string, Map<string, DeclaredColumn>>;

beforeAll(async () => {
  declared = declaredSchema();
  testDb = await createTestDatabase();
  await migrate(testDb.database, readMigrations(migrationsDir));
  const result = await sql<ActualColumn>`
    SELECT c.table_name, c.column_name, c.is_nullable, c.data_type, c.udt_name
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(testDb.database.db);
  actual = result.rows;
});
afterAll(async () => testDb?.drop());

describe(`src/db/schema.ts against the migrated database (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('declares exactly the tables the migrations create', () => {
    const migrated = [...new Set(actual.map((c) => c.table_name))].sort();
    expect(migrated.length).toBeGreaterThan(20);
    expect([...declared.keys()].sort()).toEqual(migrated);
  });

  it('declares every column with its nullability and a type its values arrive as', () => {
    const problems: string[] = [];
    const seen = new Map<string, Set<string>>();
    for (const column of actual) {
      const where = `${column.table_name}.${column.column_name}`;
      seen.set(column.table_name, (seen.get(column.table_name) ?? new Set()).add(column.column_name));
      const table = declared.get(column.table_name);
      if (table === undefined) continue; // reported by the test above
      const type = table.get(column.column_name);
      if (type === undefined) {
        problems.push(`${where}: in the database, not in schema.ts`);
        continue;
      }
      const nullable = column.is_nullable === 'YES';
      if (type.nullable !== 'either' && nullable !== type.nullable) {
        problems.push(
          `${where}: ${nullable ? 'nullable' : 'NOT NULL'} in the database, ${type.text} in schema.ts`,
        );
      }
      const allowed = allowedKinds(column.data_type, column.udt_name);
      const wrong = [...type.kinds].filter((kind) => !allowed.includes(kind));
      if (wrong.length > 0 || type.kinds.size === 0) {
        problems.push(`${where}: ${column.udt_name} in the database, ${type.text} in schema.ts`);
      }
    }
    for (const [table, columns] of declared) {
      for (const column of columns.keys()) {
        if (seen.has(table) && !seen.get(table)?.has(column)) {
          problems.push(`${table}.${column}: in schema.ts, not in the database`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
