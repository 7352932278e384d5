import {
  PostgresQueryCompiler,
  type CompiledQuery,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely';

export interface CapturedStatement {
  sql: string;
  parameters: readonly unknown[];
  /** Sent inside a transaction the code opened (`db.transaction()`), as seen by `track`. */
  inTransaction?: boolean;
}

export interface StatementRecorder {
  /** A Kysely plugin for the gateway's database handle (`wrapDatabase` of startTestGateway). */
  plugin: KyselyPlugin;
  /** Record while true. */
  recording: boolean;
  /** The statements sent while recording, compiled as PostgreSQL receives them, with their parameters. */
  captured: CapturedStatement[];
  /** Transactions opened through a `track`ed handle while recording. */
  transactions: number;
  /**
   * The handle with the plugin, whose `transaction()` is watched: each one opened while recording is
   * counted, and the statements sent while one runs are marked `inTransaction` (one request at a time).
   */
  track<DB>(db: Kysely<DB>): Kysely<DB>;
}

/** Captures the statements the gateway sends, to explain their plans in a test. */
export function statementRecorder(
  options: {
    /** Told of each statement as it is captured (a nested one too, before the one holding it). */
    onCapture?: (statement: CapturedStatement) => void;
  } = {},
): StatementRecorder {
  const compiler = new PostgresQueryCompiler();
  const captureOf = new WeakMap<object, CapturedStatement>();
  /** The nodes below `root` that were captured as queries of their own. */
  const queriesWithin = (root: object): object[] => {
    const found: object[] = [];
    const visit = (value: unknown, isRoot: boolean) => {
      if (value === null || typeof value !== 'object') return;
      if (!isRoot && captureOf.has(value)) found.push(value);
      for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child, false);
    };
    visit(root, true);
    return found;
  };
  let depth = 0;
  const watch = <B extends object>(builder: B): B =>
    new Proxy(builder, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property === 'execute')
          return async (work: (trx: unknown) => Promise<unknown>) => {
            if (recorder.recording) recorder.transactions++;
            return (value as (w: typeof work) => Promise<unknown>).call(target, async (trx) => {
              depth++;
              try {
                return await work(sendingCompiled(trx as object));
              } finally {
                depth--;
              }
            });
          };
        // setIsolationLevel and the like return a new builder: watched as well.
        return (...args: unknown[]) => {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result !== null && typeof result === 'object' && 'execute' in result
            ? watch(result)
            : result;
        };
      },
    });
  /**
   * `db` whose `executeQuery` of an already compiled statement (a precompiled one, ADR 0060: built once,
   * then sent as its text, never through the plugin) is recorded as it is sent.
   */
  const sendingCompiled = <H extends object>(db: H): H =>
    new Proxy(db, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        // Another plugin added over this handle (a second recorder) keeps this one listening.
        if (property === 'withPlugin')
          return (plugin: KyselyPlugin) =>
            sendingCompiled((value as (p: KyselyPlugin) => object).call(target, plugin));
        if (property === 'executeQuery')
          return (query: unknown, ...rest: unknown[]) => {
            if (recorder.recording && query !== null && typeof query === 'object' && !('compile' in query)) {
              const { sql, parameters } = query as CompiledQuery;
              const entry: CapturedStatement = { sql, parameters, inTransaction: depth > 0 };
              recorder.captured.push(entry);
              options.onCapture?.(entry);
            }
            return (value as (...a: unknown[]) => unknown).call(target, query, ...rest);
          };
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  const recorder: StatementRecorder = {
    recording: false,
    captured: [],
    transactions: 0,
    track<DB>(db: Kysely<DB>): Kysely<DB> {
      const withPlugin = sendingCompiled(db.withPlugin(recorder.plugin));
      return new Proxy(withPlugin, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          if (property === 'transaction') return () => watch(target.transaction());
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      });
    },
    plugin: {
      transformQuery(args: PluginTransformQueryArgs) {
        if (recorder.recording) {
          // A query built inside another (a builder interpolated into a `sql` template, as a
          // data-modifying CTE) comes through here on its own first; it is part of the statement that
          // holds it, never sent alone.
          const nested = new Set(queriesWithin(args.node).map((node) => captureOf.get(node)));
          for (let i = recorder.captured.length - 1; i >= 0 && nested.size > 0; i--) {
            if (nested.has(recorder.captured[i])) recorder.captured.splice(i, 1);
          }
          const compiled = compiler.compileQuery(args.node, args.queryId);
          const entry: CapturedStatement = {
            sql: compiled.sql,
            parameters: compiled.parameters,
            inTransaction: depth > 0,
          };
          recorder.captured.push(entry);
          captureOf.set(args.node, entry);
          options.onCapture?.(entry);
        }
        return args.node;
      },
      async transformResult(args: PluginTransformResultArgs) {
        return args.result;
      },
    },
  };
  return recorder;
}
