import { describe, expect, it } from 'vitest';
import { createLoginThrottle, LOGIN_THROTTLE, waitAfter } from '../src/http/login-throttle.js';
import { DAY, HOUR, MINUTE, SECOND } from '../src/shared/clock.js';
import { accountGateway, db, t, useTestGateway, web } from './helpers/suite.js';
import { createActiveUser, csrfIn, nextIp, textOf, uniqueEmail, WebClient } from './helpers/accounts.js';
import { createStaffUser, postLogin } from './helpers/operator.js';
import { DASHBOARD_RATE_LIMITS } from '../src/modules/users/http.js';
import { OPERATOR_LOGIN_LIMITS } from '../src/modules/operator/auth.js';

// Failed logins slow the address they come from (per account, and across accounts) with a doubling
// wait; nothing locks an account, so an attacker cannot keep the real user out (decision 0019). An
// account that signed in from an address is slowed there only by its own failures, never by failures on
// other accounts from the same address (a neighbour behind one NAT; decision 0066).
// Both realms: the merchant dashboard (HTML login form) and the operator API login (JSON).

// TRUSTED_PROXIES: every listener takes X-Forwarded-For from loopback, so tests choose addresses.
useTestGateway(accountGateway());

const PAIR = LOGIN_THROTTLE.pair;
const ADDRESS = LOGIN_THROTTLE.address;

async function throttleRows(realm: 'dashboard' | 'operator', address: string) {
  return db()
    .selectFrom('login_throttle')
    .select(['email', 'failures', 'blocked_until'])
    .where('realm', '=', realm)
    .where('address', '=', address)
    .orderBy('email')
    .execute();
}

describe('the rule', () => {
  it('waits 1 s after the 5th failure of a pair, doubling per failure, at most 15 minutes', () => {
    expect([1, 4].map((n) => waitAfter(PAIR, n))).toEqual([0, 0]);
    expect([5, 6, 7, 8, 14].map((n) => waitAfter(PAIR, n))).toEqual([1, 2, 4, 8, 512].map((s) => s * SECOND));
    expect(waitAfter(PAIR, 15)).toBe(15 * MINUTE);
    expect(waitAfter(PAIR, 10_000)).toBe(15 * MINUTE);
    expect(waitAfter(ADDRESS, ADDRESS.freeFailures - 1)).toBe(0);
    expect(waitAfter(ADDRESS, ADDRESS.freeFailures)).toBe(SECOND);
  });
});

describe('dashboard login', () => {
  it("slows the attacker's address with a growing Retry-After, while the real user signs in at once from elsewhere", async () => {
    const user = await createActiveUser(t);
    const attacker = new WebClient(web);
    for (let i = 0; i < PAIR.freeFailures; i++) {
      expect((await attacker.login(user.email, `guess number ${i}`)).status).toBe(401);
    }
    const retryAfters: number[] = [];
    for (let round = 0; round < 5; round++) {
      const refused = await attacker.login(user.email, `guess while waiting ${round}`);
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get('retry-after'));
      retryAfters.push(wait);
      // The page says the same wait, in words.
      expect(textOf(refused.text, 'form-error')).toBe(
        wait === 1
          ? 'Too many failed attempts. Wait a second, then try again.'
          : `Too many failed attempts. Wait ${wait} seconds, then try again.`,
      );
      // During the attack the owner, from their own address, gets in at once.
      const owner = new WebClient(web);
      expect((await owner.login(user.email, user.password)).status).toBe(303);

      t.clock.advance(wait * SECOND);
      expect((await attacker.login(user.email, `guess after waiting ${round}`)).status).toBe(401);
    }
    expect(retryAfters).toEqual([1, 2, 4, 8, 16]);
    // A wrong password during a wait is never checked, so never counted: 5 + 5 failures, not 15.
    const [address, pair] = await throttleRows('dashboard', attacker.ip);
    expect(pair).toMatchObject({ email: user.email.toLowerCase(), failures: PAIR.freeFailures + 5 });
    expect(address).toMatchObject({ email: '', failures: PAIR.freeFailures + 5 });
    // The owner's logins left no trace on the account: there is no account-wide state to lock.
    const row = await db()
      .selectFrom('users')
      .select(['failed_logins', 'locked_until'])
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ failed_logins: 0, locked_until: null });
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', user.userId)
      .execute();
    const count = (action: string) => audit.filter((entry) => entry.action === action).length;
    expect([count('user.login_failed'), count('user.login_throttled'), count('user.login')]).toEqual([
      10, 5, 5,
    ]);
  });

  it('the wait lapses with the clock: the right password then works from the same address', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    for (let i = 0; i < PAIR.freeFailures + 1; i++) {
      t.clock.advance(MINUTE);
      expect((await client.login(user.email, `guess number ${i}`)).status).toBe(401);
    }
    // Two seconds after the sixth failure.
    t.clock.advance(2 * SECOND - 1);
    const refused = await client.login(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    t.clock.advance(1);
    expect((await client.login(user.email, user.password)).status).toBe(303);
    expect((await throttleRows('dashboard', client.ip)).map((row) => row.email)).toEqual(['']);
  });

  it(`slows an address that fails across many accounts after ${ADDRESS.freeFailures} failures, known accounts or not`, async () => {
    const sprayer = new WebClient(web);
    const victims = await Promise.all(Array.from({ length: 3 }, () => createActiveUser(t)));
    for (let i = 0; i < ADDRESS.freeFailures; i++) {
      const email = victims[i]?.email ?? uniqueEmail('nobody');
      expect((await sprayer.login(email, 'Summer2026!summer')).status).toBe(401);
    }
    // No pair reached its own limit, yet the address now waits, for every account, even a right password.
    const victim = victims[0];
    if (!victim) throw new Error('no victim');
    const refused = await sprayer.login(victim.email, victim.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await sprayer.login(uniqueEmail('fresh'), 'anything at all')).status).toBe(429);
    // Other addresses are untouched.
    expect((await new WebClient(web).login(victim.email, victim.password)).status).toBe(303);

    t.clock.advance(SECOND);
    expect((await sprayer.login(uniqueEmail('nobody'), 'Autumn2026!autumn')).status).toBe(401);
    const next = await sprayer.login(victim.email, victim.password);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toBe('2');
  });

  it("never keeps an account out of an address it signed in from for others' failures; its own still count", async () => {
    const owner = await createActiveUser(t);
    const colleague = await createActiveUser(t);
    const office = nextIp();
    // The owner works from the office's shared address (a NAT).
    expect((await new WebClient(web, office).login(owner.email, owner.password)).status).toBe(303);

    // A neighbour behind the same address sprays other accounts, past the address's rule and past the
    // login form's own post limit; strangers elsewhere guess the owner's password.
    const neighbour = new WebClient(web, office);
    const sprayed: number[] = [];
    for (let i = 0; i < DASHBOARD_RATE_LIMITS.login.max + 5; i++) {
      const email = i === 0 ? colleague.email : uniqueEmail('sprayed');
      sprayed.push((await neighbour.login(email, 'Winter2026!winter')).status);
    }
    expect(sprayed.slice(0, ADDRESS.freeFailures)).toEqual(Array(ADDRESS.freeFailures).fill(401));
    expect(new Set(sprayed.slice(ADDRESS.freeFailures))).toEqual(new Set([429]));
    for (let stranger = 0; stranger < 3; stranger++) {
      const elsewhere = new WebClient(web);
      for (let i = 0; i <= PAIR.freeFailures; i++) await elsewhere.login(owner.email, `stranger guess ${i}`);
      expect((await elsewhere.login(owner.email, owner.password)).status).toBe(429);
    }

    // The owner still signs in from the office at once, again and again.
    for (let i = 0; i < 3; i++) {
      expect((await new WebClient(web, office).login(owner.email, owner.password)).status).toBe(303);
    }
    // An account that never signed in from the office waits with the sprayer: that is what slows
    // spraying, and it is the colleague's first sign-in here that would prove it.
    expect((await new WebClient(web, office).login(colleague.email, colleague.password)).status).toBe(429);

    // The owner's own account keeps its lockout against guessing, even from the office: its pair counts.
    for (let i = 0; i < PAIR.freeFailures; i++) {
      expect((await neighbour.login(owner.email, `neighbour guess ${i}`)).status).toBe(401);
    }
    const own = await new WebClient(web, office).login(owner.email, owner.password);
    expect(own.status).toBe(429);
    expect(own.headers.get('retry-after')).toBe('1');
    // ...and the owner's other addresses are never slowed by it.
    expect((await new WebClient(web).login(owner.email, owner.password)).status).toBe(303);
    t.clock.advance(SECOND);
    expect((await new WebClient(web, office).login(owner.email, owner.password)).status).toBe(303);
  });

  it('caps the wait at 15 minutes and forgets a counter after a day without failures', async () => {
    const user = await createActiveUser(t);
    const capped = nextIp();
    const now = t.clock.now();
    await db()
      .insertInto('login_throttle')
      .values({
        realm: 'dashboard',
        email: user.email.toLowerCase(),
        address: capped,
        failures: 60,
        blocked_until: null,
        updated_at: now,
      })
      .execute();
    expect((await new WebClient(web, capped).login(user.email, 'another guess')).status).toBe(401);
    const refused = await new WebClient(web, capped).login(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(15 * 60));

    const quiet = nextIp();
    await db()
      .insertInto('login_throttle')
      .values({
        realm: 'dashboard',
        email: user.email.toLowerCase(),
        address: quiet,
        failures: 60,
        blocked_until: null,
        updated_at: new Date(now.getTime() - DAY - HOUR),
      })
      .execute();
    expect((await new WebClient(web, quiet).login(user.email, 'one more guess')).status).toBe(401);
    const [, pair] = await throttleRows('dashboard', quiet);
    expect(pair).toMatchObject({ failures: 1, blocked_until: null });

    // The worker's purge deletes counters a day after their last failure.
    t.clock.advance(DAY + SECOND);
    expect(await createLoginThrottle(t.gateway.services).purge()).toBeGreaterThanOrEqual(4);
    expect(await throttleRows('dashboard', capped)).toEqual([]);
    expect(await throttleRows('dashboard', quiet)).toEqual([]);
  });
});

describe('operator login', () => {
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('slows the address with a growing Retry-After; the member of staff signs in at once from elsewhere', async () => {
    const account = await createStaffUser(t, 'admin');
    const ip = nextIp();
    for (let i = 0; i < PAIR.freeFailures; i++) {
      expect((await postLogin(t, account.email, `guess-${i}`, from(ip))).status).toBe(401);
    }
    const retryAfters: number[] = [];
    for (let round = 0; round < 4; round++) {
      const refused = await postLogin(t, account.email, account.password, from(ip));
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('too_many_requests');
      expect(refused.headers.getSetCookie()).toEqual([]);
      const wait = Number(refused.headers.get('retry-after'));
      expect(refused.body.error.message).toBe(
        `Too many failed login attempts; wait ${wait} second${wait === 1 ? '' : 's'} and try again.`,
      );
      retryAfters.push(wait);
      expect((await postLogin(t, account.email, account.password, from(nextIp()))).status).toBe(200);
      t.clock.advance(wait * SECOND);
      expect((await postLogin(t, account.email, `guess-after-${round}`, from(ip))).status).toBe(401);
    }
    expect(retryAfters).toEqual([1, 2, 4, 8]);
    t.clock.advance(16 * SECOND);
    expect((await postLogin(t, account.email, account.password, from(ip))).status).toBe(200);
  });

  it('slows an address that fails across many accounts, and shows the wait on the console login page', async () => {
    const account = await createStaffUser(t, 'support');
    const ip = nextIp();
    for (let i = 0; i < ADDRESS.freeFailures; i++) {
      expect((await postLogin(t, uniqueEmail('staff-guess'), 'not-the-password', from(ip))).status).toBe(401);
    }
    const refused = await postLogin(t, account.email, account.password, from(ip));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await postLogin(t, account.email, account.password, from(nextIp()))).status).toBe(200);

    // The console's HTML form (with its form token): 429, Retry-After and the message in the page.
    const console_ = new WebClient(t.urls.operator, ip);
    const page = await console_.submit('/login', {
      email: account.email,
      password: account.password,
      next: '/',
    });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe('1');
    expect(page.text).toContain('Too many failed login attempts; wait 1 second and try again.');
  });

  it('a member of staff who signed in from an address is not kept out there by failures on other accounts', async () => {
    const account = await createStaffUser(t, 'admin');
    const newcomer = await createStaffUser(t, 'support');
    const office = nextIp();
    expect((await postLogin(t, account.email, account.password, from(office))).status).toBe(200);
    const sprayed: number[] = [];
    for (let i = 0; i < OPERATOR_LOGIN_LIMITS.perAccount.max + 5; i++) {
      sprayed.push((await postLogin(t, uniqueEmail('staff-spray'), 'not-the-password', from(office))).status);
    }
    expect(sprayed.slice(0, ADDRESS.freeFailures)).toEqual(Array(ADDRESS.freeFailures).fill(401));
    expect(new Set(sprayed.slice(ADDRESS.freeFailures))).toEqual(new Set([429]));
    // Guesses at the account from elsewhere wait there, and nowhere else.
    const elsewhere = nextIp();
    for (let i = 0; i <= PAIR.freeFailures; i++)
      await postLogin(t, account.email, `guess-${i}`, from(elsewhere));
    expect((await postLogin(t, account.email, account.password, from(elsewhere))).status).toBe(429);

    expect((await postLogin(t, account.email, account.password, from(office))).status).toBe(200);
    // The console's form too.
    const console_ = new WebClient(t.urls.operator, office);
    const page = await console_.submit('/login', {
      email: account.email,
      password: account.password,
      next: '/',
    });
    expect(page.status).toBe(303);
    // Staff who never signed in from the office wait with the sprayer.
    const refused = await postLogin(t, newcomer.email, newcomer.password, from(office));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_requests');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it("the console's flood guard keeps out nobody who signed in from the address", async () => {
    const account = await createStaffUser(t, 'admin');
    const newcomer = await createStaffUser(t, 'support');
    const office = nextIp();
    const signIn = (email: string, password: string) =>
      new WebClient(t.urls.operator, office).submit('/login', { email, password, next: '/' });
    expect((await signIn(account.email, account.password)).status).toBe(303);
    // A neighbour behind the same address posts garbage (no form token) until the address's flood
    // budget is spent; the sign-in above was one of its posts.
    const neighbour = new WebClient(t.urls.operator, office);
    const flood = OPERATOR_LOGIN_LIMITS.flood.max - 1;
    for (let sent = 0; sent < flood; sent += 20) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(20, flood - sent) }, () =>
          neighbour.postForm('/login', { email: uniqueEmail('flood'), password: 'garbage' }),
        ),
      );
      expect(new Set(statuses.map((res) => res.status))).toEqual(new Set([403]));
    }
    const garbage = await neighbour.postForm('/login', { email: uniqueEmail('flood'), password: 'garbage' });
    expect(garbage.status).toBe(429);
    expect(Number(garbage.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Staff new to the address wait with the neighbour; the member of staff who works there does not.
    expect((await signIn(newcomer.email, newcomer.password)).status).toBe(429);
    const again = await signIn(account.email, account.password);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/');
  });

  it('the console login form refuses a field sent twice with 400 and its form, never a 500', async () => {
    const account = await createStaffUser(t, 'admin');
    const console_ = new WebClient(t.urls.operator);
    const csrf = csrfIn((await console_.get('/login')).text);
    const post = (body: string) =>
      fetch(`${t.urls.operator}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'x-forwarded-for': console_.ip,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: [...console_.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        },
        body,
      });
    const email = encodeURIComponent(account.email);
    const password = encodeURIComponent(account.password);
    for (const body of [
      `_csrf=${csrf}&email=${email}&email=other%40example.com&password=${password}`,
      `_csrf=${csrf}&email=${email}&password=${password}&password=x`,
      `_csrf=${csrf}&email=${email}&password=${password}&next=/a&next=/b`,
    ]) {
      const res = await post(body);
      const text = await res.text();
      if (body.includes('next=')) {
        // A repeated `next` is no bad input for the login itself: it falls back to the default page.
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/applications');
        continue;
      }
      expect(res.status).toBe(400);
      expect(res.headers.get('set-cookie') ?? '').not.toContain('gw_operator');
      expect(text).toContain('name="_csrf"');
      expect(text).toMatch(/Send one (e-mail|password)\./);
    }
  });

  it('the realms count apart: dashboard failures do not slow the operator login of the same address', async () => {
    const ip = nextIp();
    const client = new WebClient(web, ip);
    for (let i = 0; i < ADDRESS.freeFailures; i++) {
      expect((await client.login(uniqueEmail('dash'), 'not the password')).status).toBe(401);
    }
    expect((await client.login(uniqueEmail('dash'), 'not the password')).status).toBe(429);
    const account = await createStaffUser(t, 'admin');
    expect((await postLogin(t, account.email, account.password, from(ip))).status).toBe(200);
  });
});
