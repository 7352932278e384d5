import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { KycStatus, UserRole } from '../../src/db/schema.js';
import type { UserService } from '../../src/modules/users/service.js';
import { newId } from '../../src/shared/ids.js';
import { hashPassword } from '../../src/shared/passwords.js';
import type { TestGateway } from './gateway.js';

/** A gateway whose web listener trusts X-Forwarded-For from loopback, so each test can be its own client IP. */
export const ACCOUNT_TEST_ENV = { TRUSTED_PROXIES: '127.0.0.1' };

export const STRONG_PASSWORD = 'correct horse battery staple';

export function users(t: TestGateway): UserService {
  return t.gateway.services.users;
}

/** A fresh client address for each caller, so per-IP limits of one test never spill into another. */
let lastIp = 0;
export function nextIp(): string {
  lastIp += 1;
  return `10.${(lastIp >> 16) & 255}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

export function uniqueEmail(label = 'user'): string {
  return `${label}.${randomBytes(4).toString('hex')}@merchant.example`;
}

export async function createOrganization(
  t: TestGateway,
  input: { name?: string; kycStatus?: KycStatus } = {},
): Promise<{ id: string; name: string }> {
  const now = t.clock.now();
  const id = newId('org', now);
  const name = input.name ?? `Anatolia Trading ${randomBytes(2).toString('hex')}`;
  await t.testDb.database.db
    .insertInto('organizations')
    .values({
      id,
      name,
      application_id: null,
      contact_email: 'owner@merchant.example',
      kyc_status: input.kycStatus ?? 'REVIEWING',
      rate_limit_live: null,
      rate_limit_sandbox: null,
      frozen_at: null,
      frozen_reason: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, name };
}

/** What the approval of an application leaves behind: an organization, its invited owner, an activation link. */
export async function createInvitedOwner(
  t: TestGateway,
  input: { email?: string; organizationName?: string } = {},
): Promise<{
  organizationId: string;
  organizationName: string;
  userId: string;
  email: string;
  url: string;
  token: string;
}> {
  const organization = await createOrganization(t, { name: input.organizationName });
  const email = input.email ?? uniqueEmail('owner');
  const service = users(t);
  const { userId, url } = await t.testDb.database.db.transaction().execute(async (trx) => {
    const { userId } = await service.createOwnerUser(trx, {
      organizationId: organization.id,
      email,
      name: 'Ayşe Yılmaz',
    });
    const { url } = await service.createActivation(trx, { userId });
    return { userId, url };
  });
  const token = url.split('/').pop() ?? '';
  return { organizationId: organization.id, organizationName: organization.name, userId, email, url, token };
}

/**
 * A real argon2id hash of a test password, made once per password and worker: each hash costs some 50 to
 * 80 ms of CPU (m=19 MiB, t=2) and the suites create hundreds of users with the same few passwords. The
 * users share the salt, which no test looks at; the gateway verifies the hash at login as any other.
 */
const passwordHashes = new Map<string, Promise<string>>();
function testPasswordHash(password: string): Promise<string> {
  let hashed = passwordHashes.get(password);
  if (hashed === undefined) {
    hashed = hashPassword(password);
    passwordHashes.set(password, hashed);
  }
  return hashed;
}

/** An active user with a password, straight into the database (for tests that are not about activation). */
export async function createActiveUser(
  t: TestGateway,
  input: { organizationId?: string; role?: UserRole; email?: string; password?: string } = {},
): Promise<{ userId: string; organizationId: string; email: string; password: string }> {
  const organizationId = input.organizationId ?? (await createOrganization(t)).id;
  const email = input.email ?? uniqueEmail(input.role ?? 'owner');
  const password = input.password ?? STRONG_PASSWORD;
  const now = t.clock.now();
  const userId = newId('usr', now);
  await t.testDb.database.db
    .insertInto('users')
    .values({
      id: userId,
      organization_id: organizationId,
      email,
      name: null,
      role: input.role ?? 'owner',
      status: 'active',
      password_hash: await testPasswordHash(password),
      totp_secret_enc: null,
      totp_enabled_at: null,
      locked_until: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { userId, organizationId, email, password };
}

export function totpCode(secretBase32: string, at: Date): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: at.getTime(),
  });
}

export function secretFromOtpauthUri(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${uri}`);
  return secret;
}

/** The e-mails of the dev mailbox sent to `to`, newest first, opened. */
export async function mailsTo(t: TestGateway, to: string) {
  // Reset requests are worked off after their answer (issue 11 item 7).
  await t.gateway.services.users.passwordResetsSettled();
  const rows = await t.testDb.database.db
    .selectFrom('emails')
    .select(['id'])
    .where('to_address', '=', to)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const opened = await Promise.all(rows.map((row) => t.gateway.services.mailer.read(row.id)));
  return opened.filter((mail) => mail !== undefined);
}

export function linkIn(text: string, path: string): { url: string; token: string } {
  const match = new RegExp(`(https?://\\S+${path}/([A-Za-z0-9_-]{43}))`).exec(text);
  if (!match?.[1] || !match[2]) throw new Error(`no ${path} link in:\n${text}`);
  return { url: match[1], token: match[2] };
}

export interface WebResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
  location: string | null;
}

/**
 * A cookie-keeping HTTP client over real sockets, like a browser without JavaScript: follows nothing by
 * itself, sends `X-Forwarded-For` so each client has its own address.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    readonly ip: string = nextIp(),
  ) {}

  async request<T = unknown>(
    method: string,
    path: string,
    init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<WebResponse<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...init.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.base}${path}`, { method, headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const expired = attributes.some(
        (attribute) =>
          /^\s*max-age=0\s*$/i.test(attribute) ||
          (/^\s*expires=/i.test(attribute) && new Date(attribute.split('=')[1] ?? '').getTime() < Date.now()),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let json: unknown = undefined;
    if ((response.headers.get('content-type') ?? '').includes('application/json') && text !== '')
      json = JSON.parse(text);
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: json as T,
      location: response.headers.get('location'),
    };
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request('GET', path, { headers });
  }

  postForm(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request('POST', path, { form, headers });
  }

  postJson<T = unknown>(path: string, json: unknown, headers: Record<string, string> = {}) {
    return this.request<T>('POST', path, { json, headers });
  }

  /** GETs a page and posts its form back with the page's `_csrf` value. */
  async submit(pagePath: string, form: Record<string, string>, postPath = pagePath) {
    const page = await this.get(pagePath);
    return this.postForm(postPath, { _csrf: csrfIn(page.text), ...form });
  }

  async login(email: string, password: string) {
    return this.submit('/login', { email, password });
  }

  /** The CSRF token of the signed-in session, from the dashboard page. */
  async sessionCsrf(): Promise<string> {
    const page = await this.get('/dashboard');
    if (page.status !== 200) throw new Error(`dashboard answered ${page.status}`);
    return csrfIn(page.text);
  }
}

export function csrfIn(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error(`no _csrf field in:\n${html.slice(0, 2000)}`);
  return match[1];
}

/** The visible text of an element with this id (simple markup only). */
export function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match?.[1]?.replace(/<[^>]+>/g, '').trim();
}
