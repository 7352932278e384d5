import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { Kdb, Trx } from './database.js';

/**
 * A statement of the charge creation's hot path, built with Kysely once per shape and then sent as the
 * text it compiled to (ADR 0060). Building and compiling the same three statements on every request was
 * about a sixth of the gateway's own CPU samples under the bench's `POST /v1/charges`.
 *
 * - `shapeOf` names the statement's variant for some arguments: everything that changes its text (which
 *   columns an insert sets, whether a condition is `=` or `is null`, how long an `in` list is). Two
 *   arguments of one shape must compile to the same text.
 * - `build` is the statement, as Kysely code (types, column names and the text stay Kysely's).
 * - `parameters` lists the statement's parameters for some arguments, in the order of its text.
 *
 * The first execution of a shape compiles `build` and checks that its parameters are exactly
 * `parameters` (the same values, the same objects, in the same order); every later one that it sends as
 * many. A mismatch is a programming error and throws before anything is sent. (A shape that missed a
 * variant of the text shows as a count that differs, on the first execution of that variant: `is null`
 * against `= $n`, an `in` list of another length, a column more or less.)
 */
/**
 * The columns an insert's `values` or an update's `set` writes: those whose value is defined, in the
 * object's order, as Kysely compiles them (the shape of such a statement, and its parameters' order).
 */
export function definedColumns<T extends object>(values: T): Array<keyof T> {
  return (Object.keys(values) as Array<keyof T>).filter((column) => values[column] !== undefined);
}

export interface PrecompiledStatement<Args, Row> {
  execute(db: Kdb | Trx, args: Args): Promise<QueryResult<Row>>;
}

export function precompiled<Args, Row>(statement: {
  name: string;
  shapeOf: (args: Args) => string;
  build: (db: Kdb | Trx, args: Args) => Compilable<Row>;
  parameters: (args: Args) => unknown[];
}): PrecompiledStatement<Args, Row> {
  const texts = new Map<string, { sql: string; parameterCount: number }>();
  return {
    async execute(db, args) {
      const shape = statement.shapeOf(args);
      const parameters = statement.parameters(args);
      let text = texts.get(shape);
      if (text === undefined) {
        // Compiled as sent: by Kysely alone, without any plugin of the handle (the gateway's have none; a
        // test's recorder sees the statement when it is sent).
        const compiled = statement.build(db.withoutPlugins(), args).compile();
        const same =
          compiled.parameters.length === parameters.length &&
          compiled.parameters.every((value, index) => Object.is(value, parameters[index]));
        if (!same) throw new Error(`${statement.name}: its parameters are not the compiled statement's`);
        text = { sql: compiled.sql, parameterCount: parameters.length };
        texts.set(shape, text);
      } else if (parameters.length !== text.parameterCount) {
        throw new Error(`${statement.name}: shape ${shape} has ${text.parameterCount} parameters`);
      }
      return db.executeQuery<Row>(CompiledQuery.raw(text.sql, parameters));
    },
  };
}
