/**
 * `npm run build`: transpiles the program's TypeScript (src/, sandbox-acquirer/, sandbox-chain/) to
 * `dist/`, file by file, with esbuild. Types are not checked here: `npm run check` and CI do that with
 * tsc (ADR 0064). The sources are written for it (`isolatedModules`, `verbatimModuleSyntax`), so each file
 * transpiles alone to what tsc would emit.
 *
 * Only outputs whose bytes changed are written, each through a temporary file and a rename: a gateway, a
 * test or a benchmark that starts a built program while another build runs never reads a half-written
 * file, and a build with nothing changed writes nothing. Outputs whose source is gone are removed.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The folders `npm start` runs from, relative to the root; their outputs go to the same place under dist/. */
const SOURCE_DIRS = ['src', 'sandbox-acquirer', 'sandbox-chain'];
/** Never part of the program: tests, and the pages' browser scripts (served as they are). */
const EXCLUDED = [/\.test\.ts$/, /^src\/web\/assets\//];

export interface BuildResult {
  files: number;
  written: number;
  removed: number;
  ms: number;
}

export async function buildProgram(options: { outDir?: string } = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = options.outDir ?? path.join(root, 'dist');
  const entryPoints = SOURCE_DIRS.flatMap((dir) => sourceFiles(dir));
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints,
    outdir: outDir,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    write: false,
    logLevel: 'silent',
  });
  const expected = new Set<string>();
  let written = 0;
  for (const file of result.outputFiles) {
    expected.add(file.path);
    if (sameBytes(file.path, file.contents)) continue;
    mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
    written++;
  }
  let removed = 0;
  for (const dir of SOURCE_DIRS) {
    for (const output of filesUnder(path.join(outDir, dir))) {
      if (expected.has(output) || !/\.js(\.map)?$/.test(output)) continue;
      rmSync(output, { force: true });
      removed++;
    }
  }
  return { files: entryPoints.length, written, removed, ms: Math.round(performance.now() - started) };
}

function sourceFiles(dir: string): string[] {
  return filesUnder(path.join(root, dir))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .filter((file) => file.endsWith('.ts') && !EXCLUDED.some((pattern) => pattern.test(file)));
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full);
    return entry.isFile() ? [full] : [];
  });
}

function sameBytes(file: string, contents: Uint8Array): boolean {
  try {
    if (statSync(file).size !== contents.byteLength) return false;
    return Buffer.compare(readFileSync(file), contents) === 0;
  } catch {
    return false;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.error('build: transpiling the TypeScript to dist/ (types are checked by npm run check)...');
  try {
    const result = await buildProgram();
    console.error(
      `build: ${result.files} files in ${result.ms} ms (${result.written} written, ${result.removed} removed)`,
    );
  } catch (error) {
    // esbuild's own message names the file, line and column of each syntax error.
    console.error(`build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
