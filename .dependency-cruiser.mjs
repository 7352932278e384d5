// Module boundaries of src/ (ADR 0027; folder cycles: scripts/check-dependencies.ts, ADR 0073). `npm run check:boundaries` runs it on src/; the
// paths are relative to the directory it runs in, so test/boundaries.test.ts runs the same rules on the
// fixture trees in test/fixtures/boundaries/.
//
// A module is a folder src/modules/<name>. Its public files are everything except its private ones:
// `repository.ts` (or a `repository/` folder) and its tests. Another module reaches its tables only
// through its service (scripts/check-table-ownership.ts checks the SQL side of the same rule).
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No cycle between files in src/ (type-only imports included: a cycle of types is still a cycle).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'module-private-files',
      severity: 'error',
      comment:
        'A module imports another module only through its public files (service, types, errors, index), never its repository.',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/(repository(\\.ts|/)|.+\\.test\\.ts$)',
        pathNot: '^src/modules/$1/',
      },
    },
    {
      name: 'repository-only-in-its-module',
      severity: 'error',
      comment:
        'A repository is private to its module: nothing outside src/modules/<name>/ imports it, the composition root included (it wires services).',
      from: { path: '^src/', pathNot: ['^src/modules/', '\\.test\\.ts$'] },
      to: { path: '^src/modules/[^/]+/repository(\\.ts|/)' },
    },
    {
      name: 'http-idempotency-only-in-routes',
      severity: 'error',
      comment:
        'HTTP idempotency (src/http/idempotency*) is for routes: services, repositories and errors files use src/shared/idempotent-write.ts (ADR 0074).',
      from: {
        path: '^src/modules/',
        pathNot: ['(^|/)(routes|index)\\.ts$', '-(routes|api)\\.ts$', '\\.test\\.ts$'],
      },
      to: { path: '^src/http/idempotency' },
    },
    {
      name: 'shared-and-db-import-no-module',
      severity: 'error',
      comment: 'src/shared and src/db are below every module: they import none.',
      from: { path: '^src/(shared|db)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'src-imports-no-test',
      severity: 'error',
      comment: 'Nothing in src/ imports from test/ (tests kept beside the code, *.test.ts, may).',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing package.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
