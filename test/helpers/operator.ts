import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { StaffRole } from '../../src/db/schema.js';
import type { Staff } from '../../src/modules/operator/staff.js';
import type { TestGateway } from './gateway.js';
import { request, validApplication, type ErrorBody, type HttpResult } from './http.js';

// The operator side through real HTTP: staff accounts, staff sessions (cookie + CSRF token), the CLI's
// bearer token, and applications submitted through the public API.

export interface StaffAccount extends Staff {
  /** The clear password, known to the test only. */
  password: string;
}

/** A unique address in a reserved domain, so approvals never clash on the users' e-mail index. */
export function uniqueEmail(prefix = 'person'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.test`;
}

/** A password that satisfies the rules (12+ characters, not the e-mail's local part). */
export function newPassword(): string {
  return `Pw-${randomBytes(12).toString('base64url')}-9`;
}

/** A staff account created directly in the database, as the CLI or an admin would. */
export async function createStaffUser(
  t: TestGateway,
  role: StaffRole,
  overrides: { email?: string; name?: string; password?: string } = {},
): Promise<StaffAccount> {
  const password = overrides.password ?? newPassword();
  const created = await t.gateway.services.staff.create({
    email: overrides.email ?? uniqueEmail(`staff-${role}`),
    name: overrides.name ?? `Test ${role}`,
    role,
    password,
  });
  if (!created.ok) throw new Error(`staff account refused: ${created.error.code}`);
  return { ...created.value, password };
}

export interface SendOptions {
  body?: unknown;
  /** Sends the session's CSRF token on unsafe methods unless false. */
  csrf?: boolean;
  headers?: Record<string, string>;
}

export type Result<T = Record<string, unknown>> = HttpResult<T & ErrorBody>;

/** Something that calls the operator API as one identity (a staff session, a bearer token, nobody). */
export interface OperatorClient {
  readonly base: string;
  send<T = Record<string, unknown>>(method: string, path: string, options?: SendOptions): Promise<Result<T>>;
  get<T = Record<string, unknown>>(path: string): Promise<Result<T>>;
  post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Result<T>>;
  put<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Result<T>>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function client(base: string, authHeaders: (method: string, csrf: boolean) => Record<string, string>) {
  const send = <T>(method: string, path: string, options: SendOptions = {}) =>
    request<T & ErrorBody>(`${base}${path}`, {
      method,
      ...(options.body !== undefined ? { body: options.body } : {}),
      headers: { ...authHeaders(method, options.csrf ?? true), ...options.headers },
    });
  const operatorClient: OperatorClient = {
    base,
    send,
    get: (path) => send('GET', path),
    post: (path, body) => send('POST', path, body === undefined ? {} : { body }),
    put: (path, body) => send('PUT', path, body === undefined ? {} : { body }),
  };
  return operatorClient;
}

/** No credentials at all. */
export function anonymousClient(t: TestGateway): OperatorClient {
  return client(t.urls.operator, () => ({}));
}

/** The CLI's identity: `Authorization: Bearer <token>`. */
export function bearerClient(t: TestGateway, token: string): OperatorClient {
  return client(t.urls.operator, () => ({ authorization: `Bearer ${token}` }));
}

/** The operator CLI's bearer client of the gateway (its token from the gateway's start). */
export function cliClient(t: TestGateway): OperatorClient {
  const token = t.gateway.operatorCliToken;
  if (token === undefined) throw new Error('the test gateway has no operator CLI token');
  return bearerClient(t, token);
}

export interface StaffSession extends OperatorClient {
  account: StaffAccount;
  /** `gw_operator=<token>`, as sent back in the Cookie header. */
  cookie: string;
  /** The session token itself (the cookie's value). */
  token: string;
  csrfToken: string;
  /** The raw Set-Cookie header of the login. */
  setCookie: string;
}

/** A staff session over an existing cookie and CSRF token. */
export function sessionClient(
  t: TestGateway,
  session: { cookie: string; csrfToken: string },
): OperatorClient {
  return client(t.urls.operator, (method, csrf) => ({
    cookie: session.cookie,
    ...(csrf && UNSAFE.has(method) ? { 'x-csrf-token': session.csrfToken } : {}),
  }));
}

/** POST /operator/v1/session, without any assertion. */
export function postLogin(
  t: TestGateway,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) {
  return request<{ staff: Staff; csrfToken: string } & ErrorBody>(`${t.urls.operator}/operator/v1/session`, {
    body: { email, password },
    headers,
  });
}

/** Logs in through the operator API and keeps the session cookie and the CSRF token. */
export async function loginStaff(t: TestGateway, account: StaffAccount): Promise<StaffSession> {
  const res = await postLogin(t, account.email, account.password);
  expect(res.status, res.text).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('gw_operator='));
  if (setCookie === undefined) throw new Error('the login set no gw_operator cookie');
  const token = setCookie.slice('gw_operator='.length).split(';')[0] ?? '';
  const cookie = `gw_operator=${token}`;
  return {
    ...sessionClient(t, { cookie, csrfToken: res.body.csrfToken }),
    account,
    cookie,
    token,
    csrfToken: res.body.csrfToken,
    setCookie,
  };
}

/** Submits an application through the public API (POST /v1/applications); returns its id. */
export async function submitApplication(
  t: TestGateway,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await request<{ id: string }>(`${t.urls.sandboxApi}/v1/applications`, {
    body: validApplication({ contactEmail: uniqueEmail('applicant'), ...overrides }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

export interface ApplicationView {
  id: string;
  status: 'NEW' | 'IN_REVIEW' | 'APPROVED' | 'REJECTED';
  companyName: string;
  contactEmail: string;
  contactName: string;
  reviewedBy: string | null;
  reviewedAt: string | null;
  decisionReason: string | null;
  organizationId: string | null;
  [key: string]: unknown;
}

export interface OrganizationView {
  id: string;
  name: string;
  applicationId: string | null;
  contactEmail: string;
  kycStatus: 'REVIEWING' | 'APPROVED';
  featureFlags: string[];
  rateLimits: { live: number | null; sandbox: number | null };
  frozen: boolean;
  frozenReason: string | null;
  fees?: Array<{ paymentMethod: string; basisPoints: number; fixedMinor: string }>;
  [key: string]: unknown;
}

/** A demo merchant as `POST /operator/v1/demo-merchants` (and the CLI's `demo-merchant`) answer it. */
export interface DemoMerchant {
  organizationId: string;
  applicationId: string;
  kycStatus: string;
  featureFlags: string[];
  dashboard: { url: string; email: string; password: string };
  keys: { sandbox: string; live: string };
}

export interface ApprovalView {
  application: ApplicationView;
  organization: OrganizationView;
  ownerEmail: string;
  emailId: string;
}

/** Submits an application and approves it as `as`; returns the approval response. */
export async function approvedOrganization(
  t: TestGateway,
  as: OperatorClient,
  overrides: Record<string, unknown> = {},
): Promise<ApprovalView> {
  const id = await submitApplication(t, overrides);
  const res = await as.post<ApprovalView>(`/operator/v1/applications/${id}/approve`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** What the approval e-mail hands the merchant: the sandbox key and the one-time activation link. */
export async function approvalSecrets(
  t: TestGateway,
  emailId: string,
): Promise<{
  text: string;
  html: string;
  sandboxKey: string;
  activationUrl: string;
  activationToken: string;
}> {
  const email = await t.gateway.services.mailer.read(emailId);
  if (!email) throw new Error(`no e-mail ${emailId}`);
  const sandboxKey = /sk_test_[0-9A-Za-z]+/.exec(email.text)?.[0];
  const activation = /(https?:\/\/\S+\/activate\/([A-Za-z0-9_-]+))/.exec(email.text);
  if (!sandboxKey || !activation?.[1] || !activation[2])
    throw new Error(`not an approval e-mail:\n${email.text}`);
  return {
    text: email.text,
    html: email.html,
    sandboxKey,
    activationUrl: activation[1],
    activationToken: activation[2],
  };
}

/** Who calls the operator API in a file: an admin's and a support member's sessions, the CLI, nobody. */
export interface OperatorCallers {
  admin: StaffSession;
  support: StaffSession;
  cli: OperatorClient;
  anonymous: OperatorClient;
}

/** A new admin and support member signed in, the CLI's bearer client and an anonymous client. */
export async function operatorCallers(t: TestGateway): Promise<OperatorCallers> {
  const admin = await loginStaff(t, await createStaffUser(t, 'admin'));
  const support = await loginStaff(t, await createStaffUser(t, 'support'));
  return { admin, support, cli: cliClient(t), anonymous: anonymousClient(t) };
}
