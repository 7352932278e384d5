import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { accessibilityProblems } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';

// API keys in the dashboard, in a real Chromium: create a key, see it once, reload and it is gone, revoke it.

let t: TestGateway;
const { newPage, signIn, submit } = useBrowserSuite({
  setUp(started) {
    t = started;
  },
});

describe('API keys in Chromium', () => {
  it('log in -> API keys -> create -> the secret once -> reload: gone -> revoke', async () => {
    const user = await createActiveUser(t, { role: 'developer' });
    const { page } = await newPage();

    await signIn(page, user);
    expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);

    await submit(page, '#api-keys-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/api-keys?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('API keys');
    expect(await page.locator('#no-keys').isVisible()).toBe(true);
    expect(await page.locator('style, [style], script').count()).toBe(0);
    expect(await accessibilityProblems(page), 'the keys').toEqual([]);

    await page.fill('#key-name', 'Checkout server');
    await page.check('#scope-read');
    await page.check('#scope-write');
    await page.fill('#key-ips', '127.0.0.1\n203.0.113.0/24');
    await submit(page, '#create-key');
    expect(await page.locator('h1').textContent()).toBe('Your new API key');
    const secret = (await page.locator('#api-key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    expect(await page.locator('#created-scopes').textContent()).toBe('read, write');
    expect(await accessibilityProblems(page), 'the new key').toEqual([]);
    // No language link: it would reload the page and the key would be gone.
    expect(await page.locator('a.lang').count()).toBe(0);

    // Reload (the POST cannot be replayed silently): go back to the list; the secret is nowhere.
    await submit(page, '#back-to-keys');
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    const item = page.locator('#api-keys li');
    expect(await item.count()).toBe(1);
    expect(await item.locator('.key-prefix').textContent()).toBe(secret.slice(0, 16));
    expect(await item.locator('.key-name').textContent()).toBe('Checkout server');
    expect(await item.locator('.key-ips').textContent()).toBe('127.0.0.1/32, 203.0.113.0/24');
    expect(await item.locator('.key-last-used').textContent()).toBe('Never');
    expect(await item.getAttribute('data-state')).toBe('active');

    await submit(page, '#api-keys li .revoke-form button');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/api-keys?lang=en&notice=revoked`);
    expect(await page.locator('#notice').isVisible()).toBe(true);
    expect(await accessibilityProblems(page), 'after the revocation').toEqual([]);
    expect(await item.getAttribute('data-state')).toBe('revoked');
    expect(await item.locator('.revoke-form').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const api = await fetch(`${t.urls.sandboxApi}/v1/api-keys`, { headers: { 'x-api-key': secret } });
    expect(api.status).toBe(401);
  });
});
