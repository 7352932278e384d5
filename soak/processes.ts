import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';

/**
 * The programs of a soak run: the built gateway (`dist/src/main.js`, as `npm start` runs it) in api and
 * worker roles, the sandbox acquirer and the sandbox chain as programs of their own. Each is started on
 * fixed ports so that a restarted process answers where the killed one did, as behind a load balancer.
 */
export interface ProgramSpec {
  /** `api-1`, `worker-2`, `acquirer`, `chain`. */
  name: string;
  /** A source file, run from `dist/` (`src/main.ts` -> `dist/src/main.js`). */
  program: string;
  args: string[];
  env: Record<string, string>;
  /** Printed once the program is ready to serve. */
  ready: RegExp;
  /** Whether the chaos loop may SIGKILL it. */
  killable: boolean;
}

export interface RunningProgram {
  readonly spec: ProgramSpec;
  readonly child: ChildProcess;
  /** Resolves once `spec.ready` was printed; rejects if the program exits first or takes over 90 s. */
  readonly ready: Promise<void>;
  /** Everything it wrote (the last 64 KiB), for a report when something goes wrong. */
  output(): string;
  exited(): boolean;
}

const OUTPUT_LIMIT = 64 * 1024;

export function startProgram(spec: ProgramSpec): RunningProgram {
  const file = path.join(projectRoot, 'dist', spec.program.replace(/\.ts$/, '.js'));
  const child = spawn(process.execPath, [file, ...spec.args], {
    cwd: projectRoot,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exit: string | undefined;
  const append = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.setEncoding('utf8').on('data', append);
  child.stderr?.setEncoding('utf8').on('data', append);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.name} not ready after 90 s\n${output}`)), 90_000);
    const check = () => {
      if (spec.ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code, signal) => {
      exit = signal ?? String(code);
      clearTimeout(timer);
      reject(new Error(`${spec.name} exited (${exit}) before it was ready\n${output}`));
    });
  });
  // A program killed by the chaos loop rejects `ready` when nobody waits any more: not an error.
  ready.catch(() => undefined);
  return { spec, child, ready, output: () => output, exited: () => exit !== undefined };
}

/** SIGKILLs the program and resolves once it is gone. */
export async function killProgram(
  program: RunningProgram,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (program.exited() || program.child.exitCode !== null || program.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => program.child.once('exit', () => resolve()));
  program.child.kill(signal);
  await gone;
}
