import {
  PostgresQueryCompiler,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely';

export interface CapturedStatement {
  sql: string;
  parameters: readonly unknown[];
}

export interface StatementRecorder {
  /** A Kysely plugin for the gateway's database handle (`wrapDatabase` of startTestGateway). */
  plugin: KyselyPlugin;
  /** Record while true. */
  recording: boolean;
  /** The statements sent while recording, compiled as PostgreSQL receives them, with their parameters. */
  captured: CapturedStatement[];
}

/** Captures the statements the gateway sends, to explain their plans in a test. */
export function statementRecorder(): StatementRecorder {
  const compiler = new PostgresQueryCompiler();
  const recorder: StatementRecorder = {
    recording: false,
    captured: [],
    plugin: {
      transformQuery(args: PluginTransformQueryArgs) {
        if (recorder.recording) {
          const compiled = compiler.compileQuery(args.node, args.queryId);
          recorder.captured.push({ sql: compiled.sql, parameters: compiled.parameters });
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
