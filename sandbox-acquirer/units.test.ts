import { describe, expect, it } from 'vitest';
import { ibanCheckDigits, ibanValid, sandboxIban } from './bank.js';
import { cardBrand, cardOutcome, luhnValid, TEST_CARDS } from './cards.js';
import { challengePageCsp, formatMinorUnits, returnLocation } from './challenge-page.js';
import { readSandboxAcquirerEnv } from './env.js';
import { signNotification, verifyNotificationSignature } from './signature.js';

describe('test cards', () => {
  it('every number of the table is Luhn-valid and has the brand its BIN says', () => {
    for (const card of Object.values(TEST_CARDS)) {
      expect(luhnValid(card.number), card.number).toBe(true);
      expect(cardBrand(card.number), card.number).toBe(card.brand);
      expect(cardOutcome(card.number)).toEqual(card.outcome);
    }
  });

  it('the Luhn check refuses a changed digit and non-digits', () => {
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });

  it('brands from the first digits', () => {
    expect(cardBrand('4111111111111111')).toBe('visa');
    expect(cardBrand('5105105105105100')).toBe('mastercard');
    expect(cardBrand('2221000000000009')).toBe('mastercard');
    expect(cardBrand('2720990000000007')).toBe('mastercard');
    expect(cardBrand('2721000000000000')).toBe('unknown');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('340000000000009')).toBe('amex');
    expect(cardBrand('9792000000000001')).toBe('troy');
    expect(cardBrand('6011111111111117')).toBe('unknown');
  });

  it('other numbers succeed', () => {
    expect(cardOutcome('4111111111111111')).toEqual({ kind: 'succeeded' });
  });
});

describe('IBANs', () => {
  it('computes ISO 13616 check digits (a published Turkish example)', () => {
    expect(ibanCheckDigits('TR', '0006100519786457841326')).toBe('33');
    expect(ibanValid('TR330006100519786457841326')).toBe(true);
    expect(ibanValid('TR340006100519786457841326')).toBe(false);
  });

  it('gives each payment a stable, valid TR IBAN of 26 characters', () => {
    const iban = sandboxIban('pay_one');
    expect(iban).toMatch(/^TR[0-9]{24}$/);
    expect(ibanValid(iban)).toBe(true);
    expect(sandboxIban('pay_one')).toBe(iban);
    expect(sandboxIban('pay_two')).not.toBe(iban);
    for (let i = 0; i < 200; i += 1) expect(ibanValid(sandboxIban(`pay_${i}`))).toBe(true);
  });
});

describe('challenge page helpers', () => {
  it('formats minor units', () => {
    expect(formatMinorUnits('12550')).toBe('125.50');
    expect(formatMinorUnits('5')).toBe('0.05');
    expect(formatMinorUnits('100')).toBe('1.00');
  });

  it('appends payment=<id> to the return URL, keeping its query and fragment', () => {
    expect(returnLocation('https://shop.example/return', 'pay_1')).toBe(
      'https://shop.example/return?payment=pay_1',
    );
    expect(returnLocation('https://shop.example/r?a=1&b=x%20y#top', 'pay_1')).toBe(
      'https://shop.example/r?a=1&b=x%20y&payment=pay_1#top',
    );
    expect(returnLocation('https://shop.example/r?', 'pay_1')).toBe('https://shop.example/r?payment=pay_1');
  });

  it('CSP: nothing but the hashed style and forms to self and the return origin', () => {
    const csp = challengePageCsp('https://shop.example:8443/return?x=1');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://shop.example:8443;");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain('unsafe');
    expect(csp).not.toContain('script');
  });
});

describe('notification signatures', () => {
  it('is lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>"', () => {
    const signature = signNotification('secret', '1700000000', '{"a":1}');
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyNotificationSignature('secret', '1700000000', '{"a":1}', signature)).toBe(true);
    expect(verifyNotificationSignature('secret', '1700000001', '{"a":1}', signature)).toBe(false);
    expect(verifyNotificationSignature('other', '1700000000', '{"a":1}', signature)).toBe(false);
  });
});

describe('environment of npm run sandbox-acquirer', () => {
  const base = { SANDBOX_ACQUIRER_API_KEY: 'k', SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 's' };

  it('names the missing variable', () => {
    expect(() => readSandboxAcquirerEnv({})).toThrow(/SANDBOX_ACQUIRER_API_KEY/);
    expect(() => readSandboxAcquirerEnv({ SANDBOX_ACQUIRER_API_KEY: 'k' })).toThrow(
      /SANDBOX_ACQUIRER_NOTIFICATION_SECRET/,
    );
    expect(() => readSandboxAcquirerEnv({ ...base, SANDBOX_ACQUIRER_PORT: 'x' })).toThrow(
      /SANDBOX_ACQUIRER_PORT/,
    );
    expect(() => readSandboxAcquirerEnv({ ...base, SANDBOX_ACQUIRER_NOTIFICATION_URL: 'ftp://x' })).toThrow(
      /SANDBOX_ACQUIRER_NOTIFICATION_URL/,
    );
  });

  it('defaults to 127.0.0.1:3004, memory only, LOG_LEVEL info', () => {
    expect(readSandboxAcquirerEnv(base)).toEqual({
      options: { apiKey: 'k', notificationSecret: 's', port: 3004, host: '127.0.0.1' },
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const env = readSandboxAcquirerEnv({
      ...base,
      SANDBOX_ACQUIRER_PORT: '0',
      SANDBOX_ACQUIRER_HOST: '0.0.0.0',
      SANDBOX_ACQUIRER_NOTIFICATION_URL: 'http://127.0.0.1:3000/webhooks/v1/payments',
      SANDBOX_ACQUIRER_JOURNAL: '/tmp/j.jsonl',
      LOG_LEVEL: 'debug',
    });
    expect(env.options).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      defaultNotificationUrl: 'http://127.0.0.1:3000/webhooks/v1/payments',
      journalFile: '/tmp/j.jsonl',
    });
    expect(env.logLevel).toBe('debug');
  });
});
