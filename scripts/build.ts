/**
 * `npm run build`: transpiles the program's TypeScript (src/, sandbox-acquirer/, sandbox-chain/) to
 * `dist/`, file by file, with esbuild. Types are not checked here: `npm run check` and CI do that with
 * tsc (ADR 0064). The sources are written for it (`isolatedModules`, `verbatimModuleSyntax`), so each file
 * transpiles alone to what tsc would emit.
 *
 * Only outputs whose bytes changed are written, each through a temporary file and a rename: a gateway, a
 * test or a benchmark that starts a built program while another build runs never reads a half-written
 * file. Outputs whose source is gone are removed. When no source's size or time changed since the last
 * build (`dist/.build-manifest.json`), esbuild is not run at all: a restart costs a few stat calls.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild, version as esbuildVersion } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The folders `npm start` runs from, relative to the root; their outputs go to the same place under dist/. */
const SOURCE_DIRS = ['src', 'sandbox-acquirer', 'sandbox-chain'];
/** Never part of the program: tests, and the pages' browser scripts (served as they are). */
const EXCLUDED = [/\.test\.ts$/, /^src\/web\/assets\//];

export interface BuildResult {
  files: number;
  written: number;
  removed: number;
  /** Nothing changed since the last build (the sources' sizes and times, esbuild's settings): not run. */
  skipped: boolean;
  ms: number;
}

/** What the last build was made from, beside its outputs: a restart with nothing changed skips esbuild. */
const MANIFEST = '.build-manifest.json';

export async function buildProgram(options: { outDir?: string } = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = options.outDir ?? path.join(root, 'dist');
  const entryPoints = SOURCE_DIRS.flatMap((dir) => sourceFiles(dir));
  const manifest = manifestOf(entryPoints);
  if (
    readText(path.join(outDir, MANIFEST)) === manifest &&
    entryPoints.every((file) => outputExists(outDir, file))
  ) {
    return {
      files: entryPoints.length,
      written: 0,
      removed: 0,
      skipped: true,
      ms: Math.round(performance.now() - started),
    };
  }
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
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, MANIFEST), manifest);
  return {
    files: entryPoints.length,
    written,
    removed,
    skipped: false,
    ms: Math.round(performance.now() - started),
  };
}

/** Each source's path, size and modification time, with what else decides the output. */
function manifestOf(entryPoints: string[]): string {
  const sources = entryPoints.map((file) => {
    const stat = statSync(path.join(root, file));
    return [file, stat.size, stat.mtimeMs];
  });
  const tsconfig = statSync(path.join(root, 'tsconfig.json'));
  const builder = statSync(fileURLToPath(import.meta.url));
  return JSON.stringify({
    esbuild: esbuildVersion,
    tsconfig: [tsconfig.size, tsconfig.mtimeMs],
    builder: [builder.size, builder.mtimeMs],
    sources,
  });
}

function outputExists(outDir: string, source: string): boolean {
  try {
    return statSync(path.join(outDir, source.replace(/\.ts$/, '.js'))).isFile();
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
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
      result.skipped
        ? `build: ${result.files} files unchanged since the last build (${result.ms} ms)`
        : `build: ${result.files} files in ${result.ms} ms (${result.written} written, ${result.removed} removed)`,
    );
  } catch (error) {
    // esbuild's own message names the file, line and column of each syntax error.
    console.error(`build failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
