/**
 * Issue 11, items 8 and 17, with the real programs: the operator CLI finds the gateway that its DATA_DIR
 * names, whichever database that gateway runs on, and refuses (never opening an empty embedded database)
 * when that gateway runs on PostgreSQL and cannot be reached; the development admin password is printed
 * by the start that created it only, and never written to a log line.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { cliCleanups, tempDir as tempDirOf } from './helpers/crash.js';
import { createFreshDatabase, describeOnPass, dropDatabase } from './helpers/database.js';
import { request, validApplication } from './helpers/http.js';
import {
  baseEnv,
  gatewayEnv,
  runOperatorCli,
  spawnGateway,
  type CliResult,
  type GatewayProcess,
} from './helpers/process.js';

const cleanups = cliCleanups();
const tempDir = () => tempDirOf(cleanups, 'gw-cli-discovery-');

const runCli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  runOperatorCli(args, env, 120_000);

function programEnv(dataDir: string, databaseUrl: string): Record<string, string> {
  return gatewayEnv({
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
  });
}

/** The JSON log lines of the output (the banner is plain text). */
function logLines(gateway: GatewayProcess): string[] {
  return gateway
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'));
}

describeOnPass('postgres')('the operator CLI beside a gateway on PostgreSQL', { timeout: 600_000 }, () => {
  let dataDir: string;
  let databaseUrl: string;
  /** The CLI's shell: the same DATA_DIR, and no DATABASE_URL. */
  let cliEnv: Record<string, string>;
  let gateway: GatewayProcess;
  let adminPassword: string;
  let applicationId: string;

  it('goes through the running gateway, on the first start that also prints the admin password', async () => {
    dataDir = tempDir();
    databaseUrl = await createFreshDatabase();
    cleanups.push(() => dropDatabase(databaseUrl));
    cliEnv = { ...baseEnv(), DATA_DIR: dataDir };

    gateway = spawnGateway({ env: programEnv(dataDir, databaseUrl) });
    const urls = await gateway.waitForBanner(120_000);
    const login = /^ {2}Operator login: admin@gateway\.local \/ (\S+) {3}\(kept in (\S+)\)$/m.exec(
      gateway.stdout(),
    );
    expect(login, gateway.stdout()).not.toBeNull();
    adminPassword = login?.[1] ?? '';
    expect(readFileSync(path.join(dataDir, 'operator-admin.txt'), 'utf8')).toContain(
      `password: ${adminPassword}`,
    );
    // Printed once for the person at the terminal; never part of a JSON log line.
    for (const line of logLines(gateway)) expect(line).not.toContain(adminPassword);

    const applied = await request<{ id: string }>(`${urls.sandboxApi}/v1/applications`, {
      body: validApplication({ companyName: 'Found Through The Gateway' }),
    });
    expect(applied.status).toBe(201);
    applicationId = applied.body.id;

    const listed = await runCli(['list-applications'], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout) as { data: Array<{ id: string }> };
    expect(page.data.map((application) => application.id)).toContain(applicationId);
    // No embedded database appeared beside the PostgreSQL one.
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });

  it('refuses, naming DATABASE_URL, once that gateway is gone (killed, its token file left behind)', async () => {
    gateway.child.kill('SIGKILL');
    await gateway.waitForExit(30_000);
    expect(existsSync(path.join(dataDir, 'operator-cli-token'))).toBe(true);

    const refused = await runCli(['list-applications'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The gateway that uses DATA_DIR ${dataDir} runs on PostgreSQL`);
    expect(refused.stderr).toContain('Set DATABASE_URL');
    expect(refused.stdout).toBe('');
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);

    // With DATABASE_URL set, the CLI works on that database directly.
    const direct = await runCli(['list-applications'], { ...cliEnv, DATABASE_URL: databaseUrl });
    expect(direct.code, direct.stderr).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ data: [{ id: applicationId }] });
  });

  it('on a later start, names the password file but prints no password; after a clean stop it refuses', async () => {
    gateway = spawnGateway({ env: programEnv(dataDir, databaseUrl) });
    await gateway.waitForBanner(120_000);
    expect(gateway.stdout()).toMatch(
      /^ {2}Operator login: admin@gateway\.local {3}\(password in \S+operator-admin\.txt\)$/m,
    );
    expect(gateway.stdout()).not.toContain(adminPassword);

    const listed = await runCli(['list-applications'], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);

    gateway.child.kill('SIGTERM');
    expect((await gateway.waitForExit(60_000)).code).toBe(0);
    expect(existsSync(path.join(dataDir, 'operator-cli-token'))).toBe(false);
    expect(gateway.stdout()).not.toContain(adminPassword);
    const refused = await runCli(['list-applications'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('runs on PostgreSQL');
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });
});

describeOnPass('embedded')(
  'the operator CLI on a DATA_DIR without any database',
  { timeout: 300_000 },
  () => {
    it('says that it creates the embedded database there', async () => {
      const dataDir = tempDir();
      const result = await runCli(['list-applications'], { ...baseEnv(), DATA_DIR: dataDir });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        `No gateway database in DATA_DIR ${dataDir}: creating a new embedded database`,
      );
      expect(JSON.parse(result.stdout)).toEqual({ data: [], nextCursor: null });
      const again = await runCli(['list-applications'], { ...baseEnv(), DATA_DIR: dataDir });
      expect(again.code).toBe(0);
      expect(again.stderr).not.toContain('creating a new embedded database');
    });
  },
);
