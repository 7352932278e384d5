import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { DataDirLockedError, isAlive } from '../db/data-dir-lock.js';
import { CLI_TOKEN_FILE, DATABASE_KIND_FILE } from '../data-dir-files.js';
import { ApiError } from '../http/errors.js';
import { FEATURE_FLAGS, KYC_STATUSES } from '../modules/organizations/types.js';
import { STAFF_ROLES } from '../modules/operator/staff-roles.js';
import { generateEncryptionKeys } from '../shared/secret-box.js';
import { generatedPassword, UsageError, type Backend } from './operator-backend.js';

const USAGE = `Usage: npm run operator -- <command> [options]

Commands:
  create-staff --email E --name N --role admin|underwriter|support [--password P]
                                        create an operator account (a password is generated when omitted)
  set-staff-password --email E [--password P]
                                        set a staff account's password (generated when omitted); ends its
                                        sessions and any lockout; audited
  list-applications [--status NEW|IN_REVIEW|APPROVED|REJECTED] [--limit N]
  approve <applicationId>               approve: organization, owner, first keys, approval e-mail
  reject <applicationId> --reason R
  set-kyc <organizationId> REVIEWING|APPROVED
  set-flag <organizationId> <payouts|wallets|customers|events|apiKeys|disputes> on|off
  demo-merchant [--kyc APPROVED] [--flags apiKeys,events] [--email E] [--company NAME]
                                        a ready merchant for local development; prints JSON with its keys
  settle [--date YYYY-MM-DD]            run the settlement batch of a due or missed business date (default:
                                        today, UTC), as the 03:00 job does; exactly once still holds
  reconcile [--date YYYY-MM-DD] [--environment live|sandbox]
                                        reconcile the acquirer's settlement report of a UTC date that is over
                                        (default: yesterday, live) with the ledger; prints the run
  settle-refund <refundId> --outcome succeeded|failed --reason R [--provider-refund-id ID] [--amount N]
                                        settle a held refund with what the acquirer says it did (ADR 0063):
                                        succeeded needs the acquirer's refund id, --amount (minor units)
                                        when it refunded another amount; audited
  generate-encryption-key               a value for ENCRYPTION_KEYS

It uses DATABASE_URL when set. Otherwise it goes through the operator API of the gateway running with
DATA_DIR (on either database), with the token that gateway wrote to DATA_DIR/${CLI_TOKEN_FILE}; with no
gateway running it opens the embedded database in DATA_DIR, and it refuses when the gateway of DATA_DIR
runs on PostgreSQL (set DATABASE_URL). Output is JSON on stdout.`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseCommandLine(argv);
  const [command, ...args] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return;
  }
  if (command === 'generate-encryption-key') {
    console.log(JSON.stringify({ ENCRYPTION_KEYS: generateEncryptionKeys() }));
    return;
  }
  const input = buildInput(command, args, values);
  const config = loadConfig(process.env, []);
  const backend = await openBackend(config);
  try {
    const result = await backend.call(command, input);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await backend.close();
  }
}

/** The options that take a value (`--name value`), as text; each command reads those it needs. */
const VALUE_OPTIONS = [
  'email',
  'name',
  'role',
  'password',
  'status',
  'limit',
  'reason',
  'kyc',
  'flags',
  'company',
  'date',
  'environment',
  'outcome',
  'provider-refund-id',
  'amount',
] as const;

/** The options every command may take; an unknown or malformed one is a usage error (exit 1 with the usage). */
function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(VALUE_OPTIONS.map((name) => [name, { type: 'string' as const }])),
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // node:util's parseArgs refuses unknown options and missing values with ERR_PARSE_ARGS_* errors.
    if (String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError((error as Error).message);
    throw error;
  }
}

type Values = Record<string, string | boolean | undefined>;

/** How many positional arguments each command takes (after its name). */
const ARGUMENTS: Record<string, number> = {
  'create-staff': 0,
  'set-staff-password': 0,
  'list-applications': 0,
  approve: 1,
  reject: 1,
  'set-kyc': 2,
  'set-flag': 3,
  'demo-merchant': 0,
  settle: 0,
  reconcile: 0,
  'settle-refund': 1,
};

function buildInput(command: string, args: string[], values: Values): Record<string, unknown> {
  const need = (value: string | boolean | undefined, what: string): string => {
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${command} needs ${what}`);
    return value.trim();
  };
  const oneOf = <T extends string>(value: string, allowed: readonly T[], what: string): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new UsageError(`${what} must be one of ${allowed.join(', ')}`);
    return value as T;
  };
  // An argument more than the command takes is refused, never ignored: `approve a b` approves neither.
  const takes = Object.hasOwn(ARGUMENTS, command) ? ARGUMENTS[command] : undefined;
  if (takes !== undefined && args.length > takes) {
    throw new UsageError(
      `${command} takes ${takes === 0 ? 'no arguments' : `${takes} argument${takes === 1 ? '' : 's'}`}; ` +
        `unexpected ${JSON.stringify(args[takes])}`,
    );
  }
  switch (command) {
    case 'create-staff':
      return {
        email: need(values.email, '--email'),
        name: need(values.name, '--name'),
        role: oneOf(need(values.role, '--role'), STAFF_ROLES, '--role'),
        password: typeof values.password === 'string' ? values.password : undefined,
      };
    case 'set-staff-password':
      return {
        email: need(values.email, '--email'),
        password: typeof values.password === 'string' ? values.password : undefined,
      };
    case 'list-applications':
      return {
        status:
          typeof values.status === 'string'
            ? oneOf(values.status, ['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'], '--status')
            : undefined,
        limit: typeof values.limit === 'string' ? pageLimit(values.limit) : 20,
      };
    case 'approve':
      return { id: need(args[0], 'an application id') };
    case 'reject':
      return { id: need(args[0], 'an application id'), reason: need(values.reason, '--reason') };
    case 'set-kyc':
      return {
        id: need(args[0], 'an organization id'),
        kycStatus: oneOf(need(args[1], 'a KYC status'), KYC_STATUSES, 'KYC status'),
      };
    case 'set-flag': {
      const state = need(args[2], 'on or off');
      if (state !== 'on' && state !== 'off') throw new UsageError('the flag state must be on or off');
      return {
        id: need(args[0], 'an organization id'),
        flag: oneOf(need(args[1], 'a flag'), FEATURE_FLAGS, 'flag'),
        enabled: state === 'on',
      };
    }
    case 'demo-merchant':
      return {
        kycStatus: typeof values.kyc === 'string' ? oneOf(values.kyc, KYC_STATUSES, '--kyc') : undefined,
        flags:
          typeof values.flags === 'string'
            ? values.flags.split(',').map((f) => oneOf(f.trim(), FEATURE_FLAGS, '--flags'))
            : undefined,
        email: typeof values.email === 'string' ? values.email : undefined,
        companyName: typeof values.company === 'string' ? values.company : undefined,
      };
    case 'reconcile': {
      const date =
        typeof values.date === 'string'
          ? values.date.trim()
          : new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new UsageError('--date must be YYYY-MM-DD');
      const environment = typeof values.environment === 'string' ? values.environment : 'live';
      return {
        reportDate: date,
        environment: oneOf(environment, ['sandbox', 'live'] as const, '--environment'),
      };
    }
    case 'settle': {
      const date =
        typeof values.date === 'string' ? values.date.trim() : new Date().toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new UsageError('--date must be YYYY-MM-DD');
      return { businessDate: date };
    }
    case 'settle-refund': {
      const id = need(args[0], 'a refund id');
      const outcome = oneOf(need(values.outcome, '--outcome'), ['succeeded', 'failed'] as const, '--outcome');
      const reason = need(values.reason, '--reason');
      if (outcome === 'failed') {
        if (values['provider-refund-id'] !== undefined || values.amount !== undefined)
          throw new UsageError('--provider-refund-id and --amount go with --outcome succeeded only');
        return { id, outcome, reason };
      }
      const amount = values.amount;
      if (amount !== undefined && !(typeof amount === 'string' && /^[1-9][0-9]{0,17}$/.test(amount)))
        throw new UsageError('--amount must be a whole number of minor units, 1 or more');
      return {
        id,
        outcome,
        reason,
        providerRefundId: need(values['provider-refund-id'], '--provider-refund-id'),
        ...(amount === undefined ? {} : { amount }),
      };
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

/** `--limit`: a whole number from 1 to 100, as the operator API takes it; anything else is a usage error. */
function pageLimit(value: string): number {
  const limit = /^\s*[0-9]{1,3}\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= 100)) throw new UsageError('--limit must be a whole number from 1 to 100');
  return limit;
}

/**
 * Where the CLI goes: DATABASE_URL when set; otherwise the running gateway that DATA_DIR names
 * (its operator API, with the token it wrote there), whichever database it runs on; otherwise the embedded
 * database of DATA_DIR. It never opens an empty embedded database beside a gateway that runs on
 * PostgreSQL, and says so whenever it creates one.
 */
async function openBackend(config: Config): Promise<Backend> {
  if (config.databaseUrl) return directBackend(config);
  const running = runningGateway(config.dataDir);
  if (running) return httpBackend(running.url, running.token);
  if (recordedDatabaseKind(config.dataDir) === 'postgresql') {
    throw new Error(
      `The gateway that uses DATA_DIR ${config.dataDir} runs on PostgreSQL, and no running gateway with the ` +
        'operator role is recorded there. Set DATABASE_URL in this shell to the same database as the gateway, ' +
        'or start the gateway with the operator role. The CLI does not open an embedded database in its place.',
    );
  }
  if (!existsSync(path.join(config.dataDir, 'pglite'))) {
    console.error(
      `No gateway database in DATA_DIR ${config.dataDir}: creating a new embedded database there. ` +
        'For a gateway on PostgreSQL, set DATABASE_URL; for another data directory, set DATA_DIR.',
    );
  }
  try {
    return await directBackend(config);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    throw new Error(
      `${error.message}\nThat gateway runs no operator role, so the CLI cannot reach it: start it with the operator role.`,
    );
  }
}

/** The backend on a database the CLI opens itself: its module, and the gateway's with it, load only then. */
async function directBackend(config: Config): Promise<Backend> {
  const direct = await import('./operator-direct.js');
  return direct.directBackend(config);
}

/** The operator URL and token a live gateway wrote to DATA_DIR; undefined when none or its writer is dead. */
function runningGateway(dataDir: string): { url: string; token: string } | undefined {
  let content: { url?: unknown; token?: unknown; pid?: unknown };
  try {
    content = JSON.parse(readFileSync(path.join(dataDir, CLI_TOKEN_FILE), 'utf8')) as typeof content;
  } catch {
    return undefined;
  }
  if (typeof content.url !== 'string' || typeof content.token !== 'string') return undefined;
  // A file left by a gateway that was killed (SIGKILL) names a dead process: not a gateway to talk to.
  if (typeof content.pid === 'number' && !isAlive(content.pid)) return undefined;
  return { url: content.url, token: content.token };
}

function recordedDatabaseKind(dataDir: string): string | undefined {
  try {
    const content = JSON.parse(readFileSync(path.join(dataDir, DATABASE_KIND_FILE), 'utf8')) as {
      database?: unknown;
    };
    return typeof content.database === 'string' ? content.database : undefined;
  } catch {
    return undefined;
  }
}

function httpBackend(baseUrl: string, token: string): Backend {
  const send = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((error: unknown) => {
      throw new Error(
        `Could not reach the gateway at ${baseUrl}, recorded in ${CLI_TOKEN_FILE} of DATA_DIR (${String(
          (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message,
        )}). Is it still running?`,
      );
    });
    const payload = (await response.json()) as { error?: { code: string; message: string } };
    if (!response.ok)
      throw new Error(
        `${payload.error?.code ?? response.status}: ${payload.error?.message ?? 'request failed'}`,
      );
    return payload;
  };
  return {
    async call(command, input) {
      const id = encodeURIComponent(String(input.id ?? ''));
      switch (command) {
        case 'create-staff': {
          const password = (input.password as string | undefined) ?? generatedPassword(String(input.email));
          const created = (await send('POST', '/operator/v1/staff', { ...input, password })) as Record<
            string,
            unknown
          >;
          return { ...created, ...(input.password === undefined ? { password } : {}) };
        }
        case 'set-staff-password': {
          const password = (input.password as string | undefined) ?? generatedPassword(String(input.email));
          const set = (await send('POST', '/operator/v1/staff/password', {
            email: input.email,
            password,
          })) as Record<string, unknown>;
          return { ...set, ...(input.password === undefined ? { password } : {}) };
        }
        case 'list-applications': {
          const query = new URLSearchParams({
            limit: String(input.limit),
            ...(input.status ? { status: String(input.status) } : {}),
          });
          return send('GET', `/operator/v1/applications?${query.toString()}`);
        }
        case 'approve':
          return send('POST', `/operator/v1/applications/${id}/approve`);
        case 'reject':
          return send('POST', `/operator/v1/applications/${id}/reject`, { reason: input.reason });
        case 'set-kyc':
          return send('PUT', `/operator/v1/organizations/${id}/kyc-status`, { kycStatus: input.kycStatus });
        case 'set-flag':
          return send('PUT', `/operator/v1/organizations/${id}/feature-flags/${String(input.flag)}`, {
            enabled: input.enabled,
          });
        case 'demo-merchant': {
          const body = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
          return send('POST', '/operator/v1/demo-merchants', body);
        }
        case 'settle':
          return send('POST', '/operator/v1/settlement/runs', { businessDate: input.businessDate });
        case 'reconcile':
          return send('POST', '/operator/v1/reconciliations', {
            environment: input.environment,
            reportDate: input.reportDate,
          });
        case 'settle-refund': {
          const body = Object.fromEntries(
            Object.entries(input).filter(([name, value]) => name !== 'id' && value !== undefined),
          );
          return send('POST', `/operator/v1/refunds/${id}/settle`, body);
        }
        default:
          throw new UsageError(`unknown command ${command}`);
      }
    },
    close: async () => undefined,
  };
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
  else if (error instanceof ConfigError) console.error(error.message);
  else if (error instanceof ApiError)
    console.error(
      `${error.code}: ${error.message}${error.details ? ` ${JSON.stringify(error.details)}` : ''}`,
    );
  else console.error((error as Error).message);
  process.exitCode = 1;
});
