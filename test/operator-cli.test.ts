import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Kdb } from '../src/db/database.js';
import { createApplicationService } from '../src/modules/applications/service.js';
import type { ApplicationCreate } from '../src/modules/applications/schemas.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { cliCleanups, tempDir as tempDirOf } from './helpers/crash.js';
import { createFreshDatabase, describeOnPass, dropDatabase, seedDataDir } from './helpers/database.js';
import { request, validApplication } from './helpers/http.js';
import {
  baseEnv,
  gatewayEnv,
  runOperatorCli,
  spawnGateway,
  type CliResult,
  type GatewayProcess,
} from './helpers/process.js';
import {
  uniqueEmail,
  type ApplicationView,
  type OrganizationView,
  type DemoMerchant,
} from './helpers/operator.js';

// The operator CLI (src/cli/operator.ts) as a real process: on the PGlite pass directly on the embedded
// database in DATA_DIR and through the operator API of a gateway that holds that DATA_DIR; on the
// PostgreSQL pass on the server (describeOnPass).

const CLI_TIMEOUT_MS = 90_000;
const STEP_TIMEOUT_MS = 300_000;

const cleanups = cliCleanups();
const tempDir = () => tempDirOf(cleanups, 'gw-operator-cli-');

const runCli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  runOperatorCli(args, env, CLI_TIMEOUT_MS);

/** Runs a command that must succeed and returns its JSON output. */
async function cliJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli(args, env);
  expect(result.code, `operator ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Runs a command that must fail: exit 1, nothing on stdout, the reason on stderr. */
async function cliFails(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env);
  expect(result.code, `operator ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(1);
  expect(result.stdout).toBe('');
  return result.stderr;
}

type Demo = DemoMerchant;

interface StaffOutput {
  id: string;
  email: string;
  name: string;
  role: string;
  password?: string;
}

interface Approval {
  application: ApplicationView;
  organization: OrganizationView;
  ownerEmail: string;
  emailId: string;
}

async function seedApplications(database: Database, count: number): Promise<string[]> {
  const service = createApplicationService({
    db: database.db,
    clock: systemClock,
    limit: { max: 1_000_000, windowMs: 3_600_000 },
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const input = validApplication({ companyName: `CLI Company ${i}`, contactEmail: uniqueEmail('cli') });
    const submitted = await service.submit(input as unknown as ApplicationCreate, { ip: undefined });
    if (!submitted.ok) throw new Error(submitted.error.code);
    ids.push(submitted.value.id);
  }
  return ids;
}

/** The demo merchant's two keys are stored as their hashes only. */
async function expectKeysAsHashes(db: Kdb, demo: Demo): Promise<void> {
  const keys = await db
    .selectFrom('api_keys')
    .select(['environment', 'secret_hash'])
    .where('organization_id', '=', demo.organizationId)
    .orderBy('environment')
    .execute();
  expect(keys).toEqual([
    { environment: 'live', secret_hash: sha256Hex(demo.keys.live) },
    { environment: 'sandbox', secret_hash: sha256Hex(demo.keys.sandbox) },
  ]);
}

const embeddedEnv = (dataDir: string) => ({ ...baseEnv(), DATA_DIR: dataDir });

describe('usage errors', () => {
  it('exit 1 with the usage text, before any database is opened', { timeout: STEP_TIMEOUT_MS }, async () => {
    const dataDir = path.join(tempDir(), 'never-created');
    const env = embeddedEnv(dataDir);
    const cases: Array<[string[], string]> = [
      [['approve'], 'approve needs an application id'],
      [['reject', 'app_x'], 'reject needs --reason'],
      [['set-kyc', 'org_x', 'DONE'], 'KYC status must be one of REVIEWING, APPROVED'],
      [['set-flag', 'org_x', 'payouts', 'maybe'], 'the flag state must be on or off'],
      [['create-staff', '--email', 'a@b.example', '--name', 'A', '--role', 'owner'], '--role must be one of'],
      [['frobnicate'], 'unknown command frobnicate'],
      [['list-applications', '--bogus'], "Unknown option '--bogus'"],
      [['create-staff', '--email'], "Option '--email <value>' argument missing"],
      [['set-staff-password'], 'set-staff-password needs --email'],
      [['set-staff-password', '--email', 'a@b.example', 'extra'], 'set-staff-password takes no arguments'],
      [['list-applications', '--limit', 'ten'], '--limit must be a whole number from 1 to 100'],
      [['list-applications', '--limit', '0'], '--limit must be a whole number from 1 to 100'],
      [['list-applications', '--limit', '500'], '--limit must be a whole number from 1 to 100'],
      [['approve', 'app_a', 'app_b'], 'approve takes 1 argument; unexpected "app_b"'],
      [['set-flag', 'org_x', 'payouts', 'on', 'now'], 'set-flag takes 3 arguments; unexpected "now"'],
      [['settle', '2027-03-01'], 'settle takes no arguments; unexpected "2027-03-01"'],
      [['settle-refund', '--outcome', 'failed', '--reason', 'r'], 'settle-refund needs a refund id'],
      [['settle-refund', 're_x', '--reason', 'r'], 'settle-refund needs --outcome'],
      [['settle-refund', 're_x', '--outcome', 'refunded', '--reason', 'r'], '--outcome must be one of'],
      [['settle-refund', 're_x', '--outcome', 'failed'], 'settle-refund needs --reason'],
      [
        ['settle-refund', 're_x', '--outcome', 'succeeded', '--reason', 'r'],
        'settle-refund needs --provider-refund-id',
      ],
      [
        ['settle-refund', 're_x', '--outcome', 'failed', '--reason', 'r', '--amount', '5'],
        '--provider-refund-id and --amount go with --outcome succeeded only',
      ],
      [
        [
          'settle-refund',
          're_x',
          '--outcome',
          'succeeded',
          '--provider-refund-id',
          'rf',
          '--reason',
          'r',
          '--amount',
          '1.5',
        ],
        '--amount must be a whole number of minor units',
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => cliFails(args, env)));
    results.forEach((stderr, i) => {
      const [args, message] = cases[i] ?? [[], ''];
      expect(stderr, args.join(' ')).toContain(message);
      expect(stderr, args.join(' ')).toContain('Usage: npm run operator -- <command> [options]');
    });
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run operator -- <command> [options]');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describeOnPass('embedded')('on the embedded database of DATA_DIR', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let staff: StaffOutput;
  let demo: Demo;
  let applicationIds: string[] = [];
  let organizationId: string;
  let gateway: GatewayProcess | undefined;

  beforeAll(() => {
    dataDir = tempDir();
    // The run's migrated template (creating the database is test/operator-cli-discovery.test.ts's case).
    seedDataDir(dataDir);
    env = embeddedEnv(dataDir);
  });

  /** Opens the CLI's database from the test (only while no process holds it), runs `work`, closes it. */
  async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
    const database = await openDatabase({ dataDir });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  }

  it(
    'create-staff makes an account and prints a generated password',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      // A one-letter local part: the generated password must still pass the password rules.
      const email = `a@${uniqueEmail('ops').split('@')[0] ?? ''}.example`;
      staff = await cliJson<StaffOutput>(
        ['create-staff', '--email', email, '--name', 'Ops', '--role', 'underwriter'],
        env,
      );
      expect(staff).toEqual({
        id: expect.stringMatching(/^stf_/),
        email,
        name: 'Ops',
        role: 'underwriter',
        password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
      });
      const chosen = await cliJson<StaffOutput>(
        [
          'create-staff',
          '--email',
          uniqueEmail('chosen'),
          '--name',
          'Chosen',
          '--role',
          'admin',
          '--password',
          'a-chosen-password-1',
        ],
        env,
      );
      expect(chosen).not.toHaveProperty('password');
      expect(
        await cliFails(['create-staff', '--email', email, '--name', 'Again', '--role', 'admin'], env),
      ).toContain('validation_failed');
      expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
    },
  );

  it(
    'set-staff-password sets a new password, generated when none is given',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const set = await cliJson<{ id: string; email: string; sessionsEnded: number; password: string }>(
        ['set-staff-password', '--email', staff.email],
        env,
      );
      expect(set).toEqual({
        id: staff.id,
        email: staff.email,
        sessionsEnded: 0,
        password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
      });
      expect(set.password).not.toBe(staff.password);
      // No "a" in it: the address's local part is "a", which a password may not contain.
      const password = 'Br1ght-0v3n-L1d-K9x';
      const chosen = await cliJson<Record<string, unknown>>(
        ['set-staff-password', '--email', staff.email, '--password', password],
        env,
      );
      expect(chosen).not.toHaveProperty('password');
      // The later cases log in with the account's current password.
      staff = { ...staff, password };
      expect(
        await cliFails(['set-staff-password', '--email', uniqueEmail('nobody'), '--password', 'x'], env),
      ).toContain('validation_failed');
      expect(await cliFails(['set-staff-password', '--email', uniqueEmail('nobody')], env)).toContain(
        'not_found',
      );
    },
  );

  it(
    'demo-merchant --kyc APPROVED --flags apiKeys prints JSON with both keys',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      demo = await cliJson<Demo>(['demo-merchant', '--kyc', 'APPROVED', '--flags', 'apiKeys'], env);
      expect(demo).toMatchObject({
        organizationId: expect.stringMatching(/^org_/),
        applicationId: expect.stringMatching(/^app_/),
        kycStatus: 'APPROVED',
        featureFlags: ['apiKeys'],
        dashboard: { email: expect.stringContaining('@'), password: expect.any(String) },
        keys: {
          sandbox: expect.stringMatching(/^sk_test_[0-9A-Za-z]{38}$/),
          live: expect.stringMatching(/^sk_live_[0-9A-Za-z]{38}$/),
        },
      });
    },
  );

  it('lists, approves and rejects by id', { timeout: STEP_TIMEOUT_MS }, async () => {
    applicationIds = await withDatabase((database) => seedApplications(database, 3));
    const [approveId, rejectId] = applicationIds as [string, string, string];

    const listed = await cliJson<{ data: ApplicationView[]; nextCursor: string | null }>(
      ['list-applications', '--status', 'NEW'],
      env,
    );
    expect(listed.data.map((a) => a.id).sort()).toEqual([...applicationIds].sort());
    expect(listed.data.every((a) => a.status === 'NEW')).toBe(true);

    const approvedResult = await runCli(['approve', approveId], env);
    expect(approvedResult.code, approvedResult.stderr).toBe(0);
    expect(approvedResult.stdout).not.toMatch(/sk_(test|live)_|\/activate\//);
    const approval = JSON.parse(approvedResult.stdout) as Approval;
    expect(approval.application).toMatchObject({ id: approveId, status: 'APPROVED', reviewedBy: 'cli' });
    expect(approval.organization).toMatchObject({
      name: 'CLI Company 0',
      kycStatus: 'REVIEWING',
      featureFlags: [],
    });
    organizationId = approval.organization.id;

    const rejected = await cliJson<ApplicationView>(
      ['reject', rejectId, '--reason', 'Incomplete documents'],
      env,
    );
    expect(rejected).toMatchObject({
      id: rejectId,
      status: 'REJECTED',
      decisionReason: 'Incomplete documents',
    });
  });

  it('sets KYC and flags by id, and pages the list', { timeout: STEP_TIMEOUT_MS }, async () => {
    const laterId = applicationIds[2] ?? '';
    const kyc = await cliJson<OrganizationView>(['set-kyc', organizationId, 'APPROVED'], env);
    expect(kyc).toMatchObject({ id: organizationId, kycStatus: 'APPROVED' });
    expect(
      (await cliJson<OrganizationView>(['set-flag', organizationId, 'payouts', 'on'], env)).featureFlags,
    ).toEqual(['payouts']);
    expect(
      (await cliJson<OrganizationView>(['set-flag', organizationId, 'payouts', 'off'], env)).featureFlags,
    ).toEqual([]);

    const page = await cliJson<{ data: ApplicationView[]; nextCursor: string | null }>(
      ['list-applications', '--limit', '1'],
      env,
    );
    expect(page.data).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    const stillNew = await cliJson<{ data: ApplicationView[] }>(
      ['list-applications', '--status', 'NEW'],
      env,
    );
    expect(stillNew.data.map((a) => a.id)).toEqual([laterId]);
  });

  it(
    'exits 1 with not_found for unknown ids, and invalid_state_transition for a decided one',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      expect(await cliFails(['approve', 'app_doesnotexist'], env)).toContain('not_found');
      expect(await cliFails(['set-kyc', 'org_doesnotexist', 'APPROVED'], env)).toContain('not_found');
      expect(await cliFails(['reject', applicationIds[0] ?? '', '--reason', 'Late'], env)).toContain(
        'invalid_state_transition',
      );
    },
  );

  it(
    'settle-refund settles a held refund, audited as cli; an unknown or settled one exits 1',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      // A paid charge and a refund held on it (pending, parked), as the refunds service leaves one whose
      // acquirer answer disagreed (ADR 0055): made in the database while no process holds it.
      const chargeId = 'ch_clisettle01';
      const refundId = 're_clisettle01';
      await withDatabase(async ({ db }) => {
        await sql`
          INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method,
                               merchant_reference, status, creation_state, provider, provider_request,
                               provider_payment_id, provider_status, expires_at, created_at, updated_at)
          VALUES (${chargeId}, ${demo.organizationId}, 'sandbox', 5000, 'TRY', 'credit_card_tr', 'cli-settle',
                  'succeeded', 'created', 'sandbox', '{}'::jsonb, 'pay_clisettle01', 'succeeded',
                  now() + interval '1 day', now(), now())
        `.execute(db);
        await sql`
          INSERT INTO refunds (id, charge_id, organization_id, environment, amount, currency, status,
                               created_at, updated_at, parked_at, last_error)
          VALUES (${refundId}, ${chargeId}, ${demo.organizationId}, 'sandbox', 1000, 'TRY', 'pending',
                  now(), now(), now(), 'held for the operator')
        `.execute(db);
      });
      expect(
        await cliFails(['settle-refund', 're_doesnotexist', '--outcome', 'failed', '--reason', 'Asked'], env),
      ).toContain('not_found: No such refund.');
      const args = ['settle-refund', refundId, '--outcome', 'failed', '--reason', 'The acquirer has none'];
      expect(await cliJson<{ id: string; status: string }>(args, env)).toMatchObject({
        id: refundId,
        amount: '1000',
        status: 'failed',
      });
      expect(await cliFails(args, env)).toContain('invalid_state_transition');
      await withDatabase(async ({ db }) => {
        const entry = await db
          .selectFrom('audit_log')
          .select(['actor', 'action'])
          .where('target_id', '=', refundId)
          .executeTakeFirstOrThrow();
        expect(entry).toEqual({ actor: 'cli', action: 'refund.settled' });
      });
    },
  );

  it(
    'left everything in the database: audited as cli, keys only as hashes, no lock',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
      await withDatabase(async ({ db }) => {
        const staffRow = await db
          .selectFrom('staff_users')
          .selectAll()
          .where('id', '=', staff.id)
          .executeTakeFirstOrThrow();
        expect(staffRow).toMatchObject({ email: staff.email, role: 'underwriter' });
        expect(staffRow.password_hash).toMatch(/^\$argon2id\$/);
        await expectKeysAsHashes(db, demo);
        const actions = await db
          .selectFrom('audit_log')
          .select(['actor', 'action'])
          .where('actor', '=', 'cli')
          .execute();
        expect(actions.map((a) => a.action)).toEqual(
          expect.arrayContaining([
            'staff.created',
            'application.approved',
            'application.rejected',
            'organization.kyc_status_set',
            'organization.flag_enabled',
            'organization.flag_disabled',
            'organization.demo_created',
          ]),
        );
        const emails = await db.selectFrom('emails').select(['template', 'status', 'body_enc']).execute();
        expect(emails.map((e) => e.template).sort()).toEqual([
          'application_approved',
          'application_approved',
          'application_rejected',
        ]);
        expect(emails.every((e) => e.status === 'dev_mailbox' && !e.body_enc.includes('sk_test_'))).toBe(
          true,
        );
      });
    },
  );

  describe('while a gateway holds the same DATA_DIR', () => {
    let operatorUrl: string;
    let sandboxApiUrl: string;
    let tokenFile: string;

    beforeAll(async () => {
      tokenFile = path.join(dataDir, 'operator-cli-token');
      gateway = spawnGateway({
        env: gatewayEnv({ ...env, NODE_ENV: 'development' }),
      });
      const urls = await gateway.waitForBanner(90_000);
      operatorUrl = urls.operator ?? '';
      sandboxApiUrl = urls.sandboxApi ?? '';
      expect(operatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The token file is written once the operator listener is up, before the banner.
      expect(existsSync(tokenFile)).toBe(true);
    }, 120_000);

    afterAll(async () => {
      if (gateway && !gateway.exited) {
        gateway.child.kill('SIGKILL');
        await gateway.waitForExit(30_000).catch(() => undefined);
      }
    }, 60_000);

    it('finds the token file: the operator URL and a token, readable by the owner only', () => {
      const content = JSON.parse(readFileSync(tokenFile, 'utf8')) as { url: string; token: string };
      expect(content.url).toBe(operatorUrl);
      expect(content.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    });

    it(
      'lists, approves, rejects, sets KYC and flags through the operator API',
      { timeout: STEP_TIMEOUT_MS },
      async () => {
        const listed = await cliJson<{ data: ApplicationView[] }>(['list-applications'], env);
        const statuses = Object.fromEntries(listed.data.map((a) => [a.id, a.status]));
        const [approvedId, rejectedId, laterId] = applicationIds as [string, string, string];
        expect(statuses).toMatchObject({
          [approvedId]: 'APPROVED',
          [rejectedId]: 'REJECTED',
          [laterId]: 'NEW',
        });

        const submitted = await request<{ id: string }>(`${sandboxApiUrl}/v1/applications`, {
          body: validApplication({ companyName: 'Through The API', contactEmail: uniqueEmail('http') }),
        });
        expect(submitted.status).toBe(201);
        const approvedResult = await runCli(['approve', submitted.body.id], env);
        expect(approvedResult.code, approvedResult.stderr).toBe(0);
        expect(approvedResult.stdout).not.toMatch(/sk_(test|live)_|\/activate\//);
        const approval = JSON.parse(approvedResult.stdout) as Approval;
        expect(approval.application).toMatchObject({ status: 'APPROVED', reviewedBy: 'cli' });
        expect(approval.organization.name).toBe('Through The API');

        const rejected = await cliJson<ApplicationView>(['reject', laterId, '--reason', 'Not for us'], env);
        expect(rejected).toMatchObject({ status: 'REJECTED', decisionReason: 'Not for us' });
        const kyc = await cliJson<OrganizationView>(['set-kyc', approval.organization.id, 'APPROVED'], env);
        expect(kyc.kycStatus).toBe('APPROVED');
        const flagged = await cliJson<OrganizationView>(
          ['set-flag', approval.organization.id, 'wallets', 'on'],
          env,
        );
        expect(flagged.featureFlags).toEqual(['wallets']);
        const newOnly = await cliJson<{ data: ApplicationView[] }>(
          ['list-applications', '--status', 'NEW'],
          env,
        );
        expect(newOnly.data).toEqual([]);
        // settle-refund goes through the operator API too (the refund the embedded test settled is settled).
        expect(
          await cliFails(
            ['settle-refund', 're_doesnotexist', '--outcome', 'failed', '--reason', 'Asked'],
            env,
          ),
        ).toContain('not_found: No such refund.');
        expect(
          await cliFails(
            ['settle-refund', 're_clisettle01', '--outcome', 'failed', '--reason', 'Again'],
            env,
          ),
        ).toContain('invalid_state_transition');
      },
    );

    it(
      'makes demo merchants and staff through the operator API; the staff passwords log in',
      { timeout: STEP_TIMEOUT_MS },
      async () => {
        const viaApi = await cliJson<Demo>(
          ['demo-merchant', '--kyc', 'APPROVED', '--flags', 'apiKeys,events'],
          env,
        );
        expect(viaApi).toMatchObject({
          kycStatus: 'APPROVED',
          featureFlags: ['apiKeys', 'events'],
          keys: { sandbox: expect.stringMatching(/^sk_test_/), live: expect.stringMatching(/^sk_live_/) },
        });
        const created = await cliJson<StaffOutput>(
          ['create-staff', '--email', uniqueEmail('via-api'), '--name', 'Via API', '--role', 'support'],
          env,
        );
        expect(created).toMatchObject({ role: 'support', password: expect.any(String) });
        for (const account of [created, staff]) {
          const login = await request<{ staff: { id: string } }>(`${operatorUrl}/operator/v1/session`, {
            body: { email: account.email, password: account.password },
          });
          expect(login.status, account.email).toBe(200);
          expect(login.body.staff.id).toBe(account.id);
        }
      },
    );

    it(
      'exits 1 with not_found for unknown ids, and with unauthorized for a wrong token',
      { timeout: STEP_TIMEOUT_MS },
      async () => {
        expect(await cliFails(['approve', 'app_doesnotexist'], env)).toContain('not_found');
        expect(await cliFails(['set-flag', 'org_doesnotexist', 'events', 'on'], env)).toContain('not_found');
        expect(await cliFails(['approve'], env)).toContain('Usage:');
        const original = readFileSync(tokenFile, 'utf8');
        try {
          writeFileSync(tokenFile, JSON.stringify({ url: operatorUrl, token: 'not-the-token' }), {
            mode: 0o600,
          });
          expect(await cliFails(['list-applications'], env)).toContain('unauthorized');
        } finally {
          writeFileSync(tokenFile, original, { mode: 0o600 });
        }
      },
    );

    it(
      'works directly again once the gateway has stopped (and removed its token file)',
      { timeout: STEP_TIMEOUT_MS },
      async () => {
        gateway?.child.kill('SIGTERM');
        const exit = await gateway?.waitForExit(60_000);
        expect(exit?.code).toBe(0);
        expect(existsSync(tokenFile)).toBe(false);
        const listed = await cliJson<{ data: ApplicationView[] }>(
          ['list-applications', '--status', 'APPROVED'],
          env,
        );
        expect(listed.data.map((a) => a.companyName)).toEqual(
          expect.arrayContaining(['Through The API', 'CLI Company 0']),
        );
      },
    );
  });
});

describeOnPass('postgres')('on the PostgreSQL server of DATABASE_URL', () => {
  let databaseUrl: string;
  let database: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    databaseUrl = await createFreshDatabase();
    cleanups.push(() => dropDatabase(databaseUrl));
    env = { ...baseEnv(), DATABASE_URL: databaseUrl, DATA_DIR: tempDir() };
  }, 60_000);

  afterAll(async () => database?.close());

  it(
    'creates staff and a demo merchant, approves, rejects, sets KYC and flags',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const staff = await cliJson<StaffOutput>(
        ['create-staff', '--email', uniqueEmail('pg'), '--name', 'PG', '--role', 'admin'],
        env,
      );
      expect(staff).toMatchObject({ role: 'admin', password: expect.any(String) });
      const demo = await cliJson<Demo>(['demo-merchant', '--kyc', 'APPROVED', '--flags', 'apiKeys'], env);
      expect(demo).toMatchObject({ kycStatus: 'APPROVED', featureFlags: ['apiKeys'] });

      // The CLI migrated the database; the test can share it (PostgreSQL has no single-process lock).
      database = await openDatabase({ databaseUrl, poolSize: 2 });
      const [approveId, rejectId] = (await seedApplications(database, 2)) as [string, string];
      const listed = await cliJson<{ data: ApplicationView[] }>(
        ['list-applications', '--status', 'NEW'],
        env,
      );
      expect(listed.data.map((a) => a.id).sort()).toEqual([approveId, rejectId].sort());

      const approval = await cliJson<Approval>(['approve', approveId], env);
      expect(approval.application).toMatchObject({ status: 'APPROVED', reviewedBy: 'cli' });
      const rejected = await cliJson<ApplicationView>(['reject', rejectId, '--reason', 'No licence'], env);
      expect(rejected.status).toBe('REJECTED');
      expect(
        (await cliJson<OrganizationView>(['set-kyc', approval.organization.id, 'APPROVED'], env)).kycStatus,
      ).toBe('APPROVED');
      expect(
        (await cliJson<OrganizationView>(['set-flag', approval.organization.id, 'customers', 'on'], env))
          .featureFlags,
      ).toEqual(['customers']);
      expect(await cliFails(['approve', 'app_doesnotexist'], env)).toContain('not_found');
      expect(
        await cliFails(['settle-refund', 're_doesnotexist', '--outcome', 'failed', '--reason', 'Asked'], env),
      ).toContain('not_found: No such refund.');

      const { db } = database;
      await expectKeysAsHashes(db, demo);
      const organization = await db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', approval.organization.id)
        .executeTakeFirstOrThrow();
      expect(organization).toMatchObject({ kyc_status: 'APPROVED', feature_flags: ['customers'] });
      const audited = await db.selectFrom('audit_log').select('action').where('actor', '=', 'cli').execute();
      expect(audited.map((a) => a.action)).toEqual(
        expect.arrayContaining([
          'staff.created',
          'application.approved',
          'application.rejected',
          'organization.flag_enabled',
        ]),
      );
    },
  );

  it(
    'exits as soon as a command is refused before any statement of its own',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      // A weekend is refused before the batch reads anything: the run opened the pool and migrated only.
      // That pool's idle connection once kept the program alive for the pool's idle timeout (30 s).
      const started = Date.now();
      expect(await cliFails(['settle', '--date', '2026-11-22'], env)).toContain(
        'not a business day (weekend)',
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );
});
