import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signatureHeaders, signWebhook } from './signing.js';
import { sanitizeExcerpt } from './sender.js';
import { checkUrlSyntax, checkWebhookUrl, createHostResolver, isPublicAddress } from './url-guard.js';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.251', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::8.8.8.8', false],
    ['::ffff:0:7f00:1', false],
    ['64:ff9b:1::a00:1', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['2a00:1450::5efe:a00:1', false],
    ['2a00:1450::200:5efe:808:808', true],
    ['100::1', false],
    ['not-an-ip', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('checkUrlSyntax', () => {
  it('allows http in sandbox only, and refuses credentials and other schemes', () => {
    expect(checkUrlSyntax('http://shop.example/hooks', 'sandbox').ok).toBe(true);
    expect(checkUrlSyntax('http://shop.example/hooks', 'live')).toMatchObject({ problem: 'https_required' });
    expect(checkUrlSyntax('https://shop.example/hooks', 'live').ok).toBe(true);
    expect(checkUrlSyntax('https://u:p@shop.example/', 'live')).toMatchObject({ problem: 'credentials' });
    expect(checkUrlSyntax('https://u@shop.example/', 'live')).toMatchObject({ problem: 'credentials' });
    expect(checkUrlSyntax('ftp://shop.example/', 'sandbox')).toMatchObject({ problem: 'invalid_url' });
    expect(checkUrlSyntax('/relative', 'sandbox')).toMatchObject({ problem: 'invalid_url' });
  });

  it('checks every resolved address, and refuses names that do not resolve', async () => {
    const resolver = createHostResolver(() => Promise.reject(new Error('no DNS here')));
    resolver.pin('mixed.example', ['93.184.216.34', '10.0.0.1']);
    resolver.pin('public.example', ['93.184.216.34']);
    const check = (url: string) => checkWebhookUrl(url, 'live', { resolver, allowPrivate: false });
    expect(await check('https://mixed.example/')).toMatchObject({ problem: 'private_target' });
    expect((await check('https://public.example/')).ok).toBe(true);
    expect(await check('https://nowhere.example/')).toMatchObject({ problem: 'unresolvable' });
    expect((await checkWebhookUrl('http://127.0.0.1/', 'sandbox', { resolver, allowPrivate: true })).ok).toBe(
      true,
    );
  });

  it('refuses a name whose lookup outlasts the timeout instead of waiting on it', async () => {
    // The merchant's name servers never answer.
    const resolver = createHostResolver(() => new Promise(() => undefined));
    resolver.pin('public.example', ['93.184.216.34']);
    const started = performance.now();
    const check = (url: string) =>
      checkWebhookUrl(url, 'live', { resolver, allowPrivate: false, timeoutMs: 100 });
    expect(await check('https://silent.example/')).toMatchObject({ ok: false, problem: 'unresolvable' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await check('https://public.example/')).ok).toBe(true);
  });
});

describe('signing', () => {
  it('is lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the whole secret', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const body = Buffer.from('{"id":"evt_1","a":"ü"}');
    const expected = createHmac('sha256', secret)
      .update(`1700000000.${body.toString('utf8')}`)
      .digest('hex');
    expect(signWebhook(secret, 1_700_000_000, body)).toBe(expected);
    expect(signatureHeaders(body, 1_700_000_000, { current: secret, previous: null })).toEqual({
      'service-timestamp': '1700000000',
      'service-signature': expected,
    });
    const previous = generateWebhookSecret();
    expect(signatureHeaders(body, 1_700_000_000, { current: secret, previous })).toEqual({
      'service-timestamp': '1700000000',
      'service-signature': signWebhook(previous, 1_700_000_000, body),
      'service-signature-next': expected,
    });
  });

  it('keeps at most 1 KB of an answer, without control characters', () => {
    expect(sanitizeExcerpt(Buffer.from('a\u0000b\u001bc\nd'))).toBe('abc\nd');
    expect(Buffer.byteLength(sanitizeExcerpt(Buffer.from('é'.repeat(2000))) as string)).toBeLessThanOrEqual(
      1024,
    );
    expect(sanitizeExcerpt(Buffer.alloc(0))).toBeNull();
  });
});
