/**
 * The size rules of `src/` (issue 36, docs/architecture.md "Sizes"): no file over 600 lines and no
 * function over 120, except the composition root (`src/services.ts`, `src/gateway.ts`), `src/config.ts`
 * and the schema types (`src/db/schema.ts`). Functions are measured with the TypeScript parser: every
 * function declaration, method, accessor, function expression and arrow function, nested ones included,
 * from its first line to its last. Tests are not measured. Prints the offenders and exits 1 when any.
 * `--all` lists every function over the limit without failing (a review's measurement).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 120;
const EXEMPT = new Set(['src/services.ts', 'src/gateway.ts', 'src/config.ts', 'src/db/schema.ts']);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
      yield full;
  }
}

function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(file).slice(0, 60)})`;
  return '(anonymous)';
}

export interface SizeProblem {
  file: string;
  line: number;
  what: string;
  lines: number;
}

export function measure(root = ROOT): SizeProblem[] {
  const problems: SizeProblem[] = [];
  for (const full of sources(path.join(root, 'src'))) {
    const rel = path.relative(root, full).split(path.sep).join('/');
    if (EXEMPT.has(rel)) continue;
    const text = readFileSync(full, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) problems.push({ file: rel, line: 1, what: 'file', lines });
    const file = ts.createSourceFile(full, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
        const span = end - start + 1;
        if (span > MAX_FUNCTION_LINES)
          problems.push({ file: rel, line: start + 1, what: `function ${nameOf(node, file)}`, lines: span });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return problems;
}

if (import.meta.filename === process.argv[1]) {
  const problems = measure();
  for (const p of problems.sort((a, b) => b.lines - a.lines))
    console.log(`${p.file}:${p.line}: ${p.what} has ${p.lines} lines`);
  const files = problems.filter((p) => p.what === 'file').length;
  console.log(
    `sizes: ${problems.length === 0 ? 'ok' : `${files} file(s) over ${MAX_FILE_LINES} lines, ${problems.length - files} function(s) over ${MAX_FUNCTION_LINES}`}`,
  );
  if (problems.length > 0 && !process.argv.includes('--all')) process.exit(1);
}
