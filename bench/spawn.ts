import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../src/paths.js';

/**
 * Starts a bench helper program (`bench/<script>`) and answers once it prints `listening on <url>`: the
 * empty server, the webhook receivers. `name` says which one in the error when it exits first.
 */
export function spawnListening(script: string, name: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', `bench/${script}`], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (\S+)/.exec(output);
      if (match?.[1]) resolve({ url: match[1], child });
    });
    child.on('exit', (code) => reject(new Error(`the ${name} exited with ${code}`)));
  });
}
