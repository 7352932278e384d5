/**
 * A module reads and writes only its own tables (issue 12, ADR 0027). Scans `src/**\/*.ts` (tests excepted)
 * for Kysely's `selectFrom`, `insertInto`, `updateTable`, `deleteFrom`, `innerJoin`, `leftJoin`,
 * `rightJoin`, `fullJoin` and for `sql` template text naming a table (`from t`, `join t`, `update t`,
 * `into t`), and fails on:
 * - a query of a table by a file outside the table's owner, unless the pair is on ALLOWLIST;
 * - an ALLOWLIST entry that no longer occurs (the list only shrinks);
 * - a table created by a migration with no owner in OWNERS (every new table gets an owner).
 *
 * Usage: `tsx scripts/check-table-ownership.ts [--root DIR]` (DIR holds `src/`; default the repository).
 * With `--root` the ALLOWLIST is not applied (the boundary tests run it on fixture trees).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The owner of each table: a module (`src/modules/<name>`, written `<name>`) or a platform folder
 * (`src/http`). Derived from the migrations that create the tables and the code that writes them; the
 * same table is in docs/architecture.md ("Module boundaries").
 */
export const OWNERS: Record<string, string> = {
  applications: 'applications',
  idempotency_keys: 'src/http',
  login_throttle: 'src/http',
  sessions: 'src/http',
  organizations: 'organizations',
  fee_schedules: 'organizations',
  organization_logos: 'organizations',
  staff_users: 'operator',
  operator_alerts: 'operator',
  users: 'users',
  recovery_codes: 'users',
  account_tokens: 'users',
  api_keys: 'api-keys',
  api_key_auth_epoch: 'api-keys',
  api_key_requests: 'api-keys',
  audit_log: 'audit',
  emails: 'email',
  charges: 'charges',
  provider_notifications: 'charges',
  charge_card_attempts: 'charges',
  refunds: 'refunds',
  events: 'events',
  journal_entries: 'ledger',
  ledger_postings: 'ledger',
  customers: 'customers',
  ledger_balance_checkpoints: 'ledger',
  ledger_checkpoint_horizon: 'ledger',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  job_periods: 'src/worker',
  job_runs: 'src/worker',
  wallets: 'wallets',
  wallet_changes: 'wallets',
  wallet_settings: 'wallets',
  payouts: 'payouts',
  payout_minimums: 'payouts',
  fx_rates: 'payouts',
  fx_spreads: 'payouts',
  fx_rate_sources: 'payouts',
  reconciliation_runs: 'reconciliation',
  reconciliation_differences: 'reconciliation',
  settlement_batches: 'settlement',
  settlement_items: 'settlement',
  settlement_settings: 'settlement',
  settlement_reserve_releases: 'settlement',
  settlement_reserve_recoveries: 'settlement',
  business_closures: 'settlement',
  // Issue 37 (migrations 0039 to 0044).
  disputes: 'disputes',
  fraud_warnings: 'disputes',
  dispute_alerts: 'disputes',
  dispute_fee_schedules: 'disputes',
  dispute_ratio_settings: 'disputes',
  dispute_ratio_summaries: 'disputes',
  dispute_ratio_days: 'disputes',
  dispute_refund_rules: 'disputes',
  dispute_auto_refunds: 'disputes',
  files: 'files',
  file_contents: 'files',
  // Issue 38 (migration 0046): the BIN table.
  card_bins: 'bins',
};

/**
 * Known violations, file and table, each with why it is there. Every entry is to be removed by issue 12
 * (the module that needs the data calls the owner's service instead); the check fails when an entry no
 * longer occurs, so delete the line in the same change that removes the query.
 */
export const ALLOWLIST: ReadonlyArray<{ file: string; table: string; why: string }> = [
  // The card schemes' ratios (issue 37 item 6, docs/dispute-ratios.md) count settled card sales, chargebacks
  // and fraud warnings by the charge's scheme in one read-only statement per figure set (migration 0042's
  // partial indexes); through the charges service it would be a second statement joined in memory.
  {
    file: 'src/modules/disputes/ratios/repository.ts',
    table: 'charges',
    why: 'the ratios count card sales and disputes by the charge scheme in one read-only statement',
  },
  // Kept on purpose: key authentication reads the key and its organization's state (KYC, freeze, flags,
  // rate limits) in one indexed query, the same plan whether the key exists or not, on every uncached
  // request. Through the organizations service it would be a second round trip on the hot path, and a
  // timing difference between unknown and known keys. Revisit with the authentication cache.
  {
    file: 'src/modules/api-keys/repository.ts',
    table: 'organizations',
    why: 'key auth reads the organization state in the same single query (hot path, one plan)',
  },
];

export interface Finding {
  file: string;
  line: number;
  table: string;
  owner: string;
  area: string;
}

const KYSELY =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*['"`]([a-z_][a-z0-9_]*)/g;
const SQL_TEMPLATE = /\bsql(?:<[^`]*?>)?`([^`]*)`/g;
const SQL_TABLE = /\b(?:from|join|update|into)\s+"?([a-z_][a-z0-9_]*)"?/gi;

/** `src/modules/<name>/...` -> `<name>`; any other `src/<dir>/...` -> `src/<dir>`; `src/x.ts` -> `src/x.ts`. */
export function areaOf(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'modules' && parts.length > 3) return parts[2] ?? file;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
}

function walk(dir: string, root: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, root, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) {
      out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  }
}

/** The tables the migrations create. */
export function migratedTables(root: string): string[] {
  const dir = path.join(root, 'src/db/migrations');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.sql'));
  } catch {
    return [];
  }
  const tables = new Set<string>();
  for (const name of names) {
    const text = readFileSync(path.join(dir, name), 'utf8');
    for (const m of text.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?/gi)) {
      tables.add(m[1]!.toLowerCase());
    }
  }
  return [...tables].sort();
}

/** Every query of a table owned by another area. */
export function scan(root: string, owners: Record<string, string>): Finding[] {
  const files: string[] = [];
  walk(path.join(root, 'src'), root, files);
  const findings: Finding[] = [];
  for (const file of files.sort()) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const area = areaOf(file);
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    const hits: Array<{ table: string; index: number }> = [];
    for (const m of text.matchAll(KYSELY)) hits.push({ table: m[2]!, index: m.index });
    for (const m of text.matchAll(SQL_TEMPLATE)) {
      for (const t of m[1]!.matchAll(SQL_TABLE)) hits.push({ table: t[1]!.toLowerCase(), index: m.index });
    }
    const seen = new Set<string>();
    for (const { table, index } of hits) {
      const owner = owners[table];
      if (owner === undefined || owner === area) continue;
      const key = `${table}:${lineOf(index)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ file, line: lineOf(index), table, owner, area });
    }
  }
  return findings;
}

export interface Report {
  violations: Finding[];
  stale: Array<{ file: string; table: string }>;
  unowned: string[];
}

export function check(root: string, allowlist: ReadonlyArray<{ file: string; table: string }>): Report {
  const findings = scan(root, OWNERS);
  const allowed = (f: { file: string; table: string }) =>
    allowlist.some((a) => a.file === f.file && a.table === f.table);
  return {
    violations: findings.filter((f) => !allowed(f)),
    stale: allowlist.filter((a) => !findings.some((f) => f.file === a.file && f.table === a.table)),
    unowned: migratedTables(root).filter((t) => OWNERS[t] === undefined),
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const rootIndex = args.indexOf('--root');
  const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const root = rootIndex >= 0 ? path.resolve(args[rootIndex + 1] ?? '.') : repository;
  const report = check(root, root === repository ? ALLOWLIST : []);
  for (const v of report.violations) {
    console.error(`${v.file}:${v.line}: queries ${v.table}, owned by ${v.owner} (this file is in ${v.area})`);
  }
  for (const s of report.stale) {
    console.error(`ALLOWLIST entry no longer occurs (delete it): ${s.file} ${s.table}`);
  }
  for (const t of report.unowned) {
    console.error(
      `table ${t} (created by a migration) has no owner in OWNERS of scripts/check-table-ownership.ts`,
    );
  }
  const failures = report.violations.length + report.stale.length + report.unowned.length;
  if (failures > 0) {
    console.error(`table ownership: ${failures} problem(s)`);
    process.exitCode = 1;
  } else {
    console.log(
      `table ownership: ok (${Object.keys(OWNERS).length} tables, ${ALLOWLIST.length} allowlisted)`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
