import {
  PostgresQueryCompiler,
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
export function statementRecorder(): StatementRecorder {
  const compiler = new PostgresQueryCompiler();
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
                return await work(trx);
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
  const recorder: StatementRecorder = {
    recording: false,
    captured: [],
    transactions: 0,
    track<DB>(db: Kysely<DB>): Kysely<DB> {
      const withPlugin = db.withPlugin(recorder.plugin);
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
          const compiled = compiler.compileQuery(args.node, args.queryId);
          recorder.captured.push({
            sql: compiled.sql,
            parameters: compiled.parameters,
            inTransaction: depth > 0,
          });
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
