import { describe, expect, it } from 'vitest';
import { sanitizeProviderMessage } from './sanitize.js';

const LEAKS = [
  /\bat\s+\S+\s+\(/,
  /\/(?:srv|home|usr|opt|var|app)\//,
  /[A-Za-z]:\\/,
  /node:internal/,
  /file:\/\//,
  /\.(?:js|ts|py|java|go):\d+/,
  /[0-9a-f]{16,}/i,
  /\d{13,19}/,
  /\p{Cc}/u,
];

function expectClean(message: string): void {
  for (const leak of LEAKS) expect(message, `${message} leaks ${leak}`).not.toMatch(leak);
  expect(message.length).toBeLessThanOrEqual(200);
}

describe('sanitizeProviderMessage', () => {
  it('keeps a plain reason as it is', () => {
    expect(sanitizeProviderMessage('Card was declined by the issuer.')).toBe(
      'Card was declined by the issuer.',
    );
    expect(sanitizeProviderMessage('Kart limiti yetersiz')).toBe('Kart limiti yetersiz');
  });

  it('removes Node stack frames, on their own lines or inline', () => {
    const raw =
      "TypeError: Cannot read properties of undefined (reading 'amount')\n" +
      '    at validate (/srv/acquirer/src/payments/validate.js:42:17)\n' +
      '    at async Promise.all (index 0)\n' +
      '    at /srv/acquirer/node_modules/fastify/lib/route.js:301:9\n' +
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)';
    const clean = sanitizeProviderMessage(raw);
    expectClean(clean);
    expect(clean).toContain('Cannot read properties of undefined');
    expect(clean).not.toContain('validate.js');
  });

  it('removes Python, Java and Go traces', () => {
    const samples = [
      'Traceback (most recent call last):\n  File "/opt/psp/app/views.py", line 88, in charge\nKeyError: \'pan\'',
      'java.lang.IllegalStateException: limit exceeded\n\tat com.psp.core.Limits.check(Limits.java:77)\n\tat com.psp.Api.pay(Api.java:12)',
      'panic: runtime error\ngoroutine 17 [running]:\nmain.handler(0xc000123456)\n\t/home/build/psp/main.go:55 +0x1d',
    ];
    for (const raw of samples) {
      const clean = sanitizeProviderMessage(raw);
      expectClean(clean);
      expect(clean.length).toBeGreaterThan(5);
    }
    expect(sanitizeProviderMessage(samples[1])).toContain('limit exceeded');
  });

  it('removes internal paths of every shape', () => {
    const raw =
      'Config missing at /etc/psp/secrets/prod.yaml and C:\\inetpub\\psp\\web.config and \\\\fileserver\\share\\keys ' +
      'see file:///var/lib/psp/state.db or ~/psp/.env or ../lib/db.ts:12';
    const clean = sanitizeProviderMessage(raw);
    expectClean(clean);
    expect(clean).toMatch(/^Config missing at/);
    expect(clean).not.toMatch(/etc|inetpub|fileserver|state\.db|\.env/);
  });

  it('removes long hex ids, UUIDs and 0x values but keeps short numbers', () => {
    const raw =
      'Merchant 4f9c2e1ab7d84c0e9a1b2c3d4e5f6a7b rejected trace=deadbeefcafebabe0011 ' +
      'req 123e4567-e89b-12d3-a456-426614174000 ptr 0x7ffdf00d1234 code 51 limit 5000';
    const clean = sanitizeProviderMessage(raw);
    expectClean(clean);
    expect(clean).not.toMatch(/deadbeef|123e4567|0x7ff|4f9c2e1a/);
    expect(clean).toContain('code 51 limit 5000');
  });

  it('removes anything shaped like a card number', () => {
    const clean = sanitizeProviderMessage('Card 4111 1111 1111 1111 blocked; also 5555555555554444.');
    expectClean(clean);
    expect(clean).not.toMatch(/4111|5555/);
  });

  it('drops control characters, collapses whitespace and caps the length', () => {
    const clean = sanitizeProviderMessage(`Bad\u0000 request\u001b[31m   ${'x '.repeat(300)}`);
    expectClean(clean);
    expect(clean.endsWith('…')).toBe(true);
  });

  it('falls back to a generic sentence when nothing readable is left or the message is not a string', () => {
    expect(sanitizeProviderMessage('/srv/app/index.js:1:1')).toBe(
      'The payment provider refused the request.',
    );
    expect(sanitizeProviderMessage('deadbeefdeadbeefdeadbeef')).toBe(
      'The payment provider refused the request.',
    );
    expect(sanitizeProviderMessage(undefined)).toBe('The payment provider refused the request.');
    expect(sanitizeProviderMessage({ message: 'x' })).toBe('The payment provider refused the request.');
    expect(sanitizeProviderMessage('')).toBe('The payment provider refused the request.');
  });

  it('keeps ordinary words, parenthesised remarks, times and word/word pairs intact', () => {
    const kept = [
      'Rejected at checkout (limit)',
      'Rejected at issuer (code 05): do not honor',
      'Declined by issuer/acquirer network; retry at 12:30:00 UTC',
      'Amount 100 200 300 400 500 exceeds the limit',
      'Card expired at the issuer (see the expiry date) and/or blocked',
      'Kart limiti yetersiz (banka: Ziraat) saat 09:15',
    ];
    for (const raw of kept) expect(sanitizeProviderMessage(raw)).toBe(raw);
  });

  it('removes an identifier without taking the words around it (the "Rejected id" of issue 11)', () => {
    expect(sanitizeProviderMessage('Rejected id 4f9c2e1ab7d84c0e9a1b2c3d4e5f6a7b at risk (score 97)')).toBe(
      'Rejected id at risk (score 97)',
    );
    expect(sanitizeProviderMessage('Payment txn_4f9c2e1ab7d84c0e9a1b2c3d4e5f6a7b refused')).toBe(
      'Payment refused',
    );
    expect(sanitizeProviderMessage('Refused, trace=deadbeefcafebabe0011.')).toBe('Refused, trace.');
    expect(sanitizeProviderMessage('Duplicate of req_123e4567-e89b-12d3-a456-426614174000')).toBe(
      'Duplicate of',
    );
  });

  it('removes frames and paths but not the sentence they follow', () => {
    const samples: Array<[string, string]> = [
      [
        'Limit exceeded at merchant level\n\tat com.psp.core.Limits.check(Limits.java:77)\n\t... 12 more',
        'Limit exceeded at merchant level',
      ],
      ['Declined\n   at Psp.Core.Pay(Int32 amount) in C:\\src\\Pay.cs:line 42', 'Declined'],
      [
        'Risk check failed\n    at new Risk (/srv/psp/risk.js:3:9)\n    at Object.run [as handler] (/srv/psp/run.js:1:2)\n    at <anonymous>',
        'Risk check failed',
      ],
      ['Validation failed in src/payments/validate.js:42 for amount', 'Validation failed in for amount'],
      ['See https://acquirer.internal:8443/docs/errors#limit for details', 'See for details'],
      ['No route for POST /v1/payments/pay_x/refunds.', 'No route for POST.'],
    ];
    for (const [raw, expected] of samples) {
      const clean = sanitizeProviderMessage(raw);
      expectClean(clean);
      expect(clean).toBe(expected);
    }
  });

  it('cuts an overlong message between words', () => {
    const clean = sanitizeProviderMessage(`Refused ${'because '.repeat(40)}`);
    expect(clean.length).toBeLessThanOrEqual(200);
    expect(clean).toMatch(/ because…$/);
    const astral = sanitizeProviderMessage(`Ret ${'😀'.repeat(150)}`);
    expect(astral.length).toBeLessThanOrEqual(200);
    expect(astral).not.toMatch(/[\uD800-\uDBFF]…$/);
  });

  it('stays fast on hostile input (the input is capped before any pattern runs)', () => {
    const started = performance.now();
    sanitizeProviderMessage(`at ${'a('.repeat(3000)}`);
    sanitizeProviderMessage(`${'/a'.repeat(3000)}`);
    sanitizeProviderMessage(`at x (${'(a)'.repeat(1500)}`);
    sanitizeProviderMessage(`${'1 '.repeat(3000)}`);
    sanitizeProviderMessage(`${'a/'.repeat(3000)}`);
    sanitizeProviderMessage('x'.repeat(100_000));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
