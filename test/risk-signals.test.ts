import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { API_CSP, createHttpServer, type App } from '../src/http/server.js';
import {
  canonicalIp,
  cardBin,
  cardFingerprint,
  cardLast4,
  cardSubmissionSignals,
  clientIp,
  countriesDiffer,
  emailSignals,
  fingerprintKey,
  openIpCountries,
  type IpCountries,
} from '../src/modules/risk/signals/index.js';
import { createSecretBox, generateEncryptionKeys, parseEncryptionKeys } from '../src/shared/secret-box.js';

// The risk signals of a card submission (docs/risk.md, "Signals"): pure functions, the IP database opened
// once for the file, and the client address through the gateway's own HTTP server.

const VISA = '4242424242424242';
const KEY = randomBytes(32);
const databasePath = loadConfig({}).risk.ipCountryDatabase;

let countries: IpCountries;
/** The same file read directly, to check what the database itself says of each example address. */
let raw: Reader<Response>;

beforeAll(async () => {
  [countries, raw] = await Promise.all([openIpCountries(databasePath), maxmind.open(databasePath)]);
});

const recordedCountry = (ip: string) => (raw.get(ip) as { country_code?: string } | null)?.country_code;

describe('card', () => {
  it('fingerprints the digits with HMAC-SHA-256 under the key: fp_ and base64url, however the number is typed', () => {
    const fingerprint = cardFingerprint(VISA, KEY);
    expect(fingerprint).toMatch(/^fp_[A-Za-z0-9_-]{43}$/);
    expect(fingerprint).toBe(`fp_${createHmac('sha256', KEY).update(VISA).digest('base64url')}`);
    for (const typed of ['4242 4242 4242 4242', '4242-4242-4242-4242', ' 4242424242424242 ']) {
      expect(cardFingerprint(typed, KEY)).toBe(fingerprint);
    }
    expect(cardFingerprint('5555555555554444', KEY)).not.toBe(fingerprint);
  });

  it('is keyed: another key gives another fingerprint, and nothing of the number is in it', () => {
    const fingerprints = new Set(
      [KEY, randomBytes(32), randomBytes(32)].map((k) => cardFingerprint(VISA, k)),
    );
    expect(fingerprints.size).toBe(3);
    for (const fingerprint of fingerprints) {
      for (const encoded of [VISA, '42424242', Buffer.from(VISA).toString('base64url').slice(0, 12)]) {
        expect(fingerprint).not.toContain(encoded);
      }
    }
  });

  it('takes RISK_FINGERPRINT_KEY when set, else a key derived from ENCRYPTION_KEYS (stable per key, distinct per key)', () => {
    const box = createSecretBox(parseEncryptionKeys(generateEncryptionKeys('v1')));
    const derived = fingerprintKey(undefined, box);
    expect(derived).toHaveLength(32);
    expect(derived.equals(fingerprintKey(undefined, box))).toBe(true);
    expect(derived.equals(box.deriveKey('pagination-cursor'))).toBe(false);
    expect(fingerprintKey(KEY, box)).toBe(KEY);
    const otherBox = createSecretBox(parseEncryptionKeys(generateEncryptionKeys('v1')));
    expect(cardFingerprint(VISA, fingerprintKey(undefined, otherBox))).not.toBe(
      cardFingerprint(VISA, derived),
    );
  });

  it('keeps the BIN (8 digits of a 16-digit number or longer, else 6) and the last four', () => {
    expect(cardBin('4242 4242 4242 4242')).toBe('42424242');
    expect(cardBin('9792030394440796')).toBe('97920303');
    expect(cardBin('378282246310005')).toBe('378282');
    expect(cardBin('4000012345678905123')).toBe('40000123');
    expect(cardLast4('4242-4242-4242-4242')).toBe('4242');
  });
});

describe('IP country', () => {
  it('gives public IPv4 and IPv6 addresses the database’s country', () => {
    const examples = [
      ['8.8.8.8', 'US'],
      ['2001:4860:4860::8888', 'US'],
      ['195.175.39.39', 'TR'],
      ['2001:a98::1', 'TR'],
      ['1.1.1.1', 'AU'],
    ] as const;
    for (const [ip, country] of examples) {
      expect(recordedCountry(ip), ip).toBe(country);
      expect(countries.countryOf(ip), ip).toBe(country);
    }
  });

  it('looks an IPv4-mapped IPv6 address up as its IPv4 address', () => {
    expect(recordedCountry('::ffff:8.8.8.8')).toBeUndefined();
    expect(countries.countryOf('::ffff:8.8.8.8')).toBe('US');
    expect(countries.countryOf('::ffff:c3af:2727')).toBe('TR');
  });

  it('calls loopback, private, link-local, CGNAT, unique-local and other special addresses unknown, whatever the file says', () => {
    const special = [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.10.1',
      'fe80::1',
      '100.64.0.1',
      'fd12:3456::1',
      '::ffff:10.0.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '2001:db8::1',
    ];
    for (const ip of special) expect(countries.countryOf(ip), ip).toBe('unknown');
    // The default database gives this private range a country: the range rule, not the file, decides.
    expect(countries.countryOf('192.168.1.1')).toBe('unknown');
  });

  it('calls anything that is not an address unknown, legacy IPv4 forms included', () => {
    for (const text of [
      null,
      '',
      'unknown',
      '8.8.8.8 ',
      '8.8.8.8:443',
      '[::1]',
      '134744072',
      '0x8.8.8.8',
      '010.8.8.8',
    ]) {
      expect(countries.countryOf(text), String(text)).toBe('unknown');
      expect(canonicalIp(text), String(text)).toBeNull();
    }
  });
});

describe('client address', () => {
  let proxied: App;
  let direct: App;

  const server = async (env: Record<string, string>) => {
    const app = await createHttpServer({
      listener: 'web',
      logger: pino({ level: 'silent' }),
      bodyLimitBytes: 65_536,
      trustedProxies: loadConfig(env).trustedProxies,
      requestTimeoutMs: 30_000,
      outboundBudgetMs: 20_000,
      contentSecurityPolicy: API_CSP,
      readiness: async () => {},
    });
    app.get('/ip', async (request) => {
      const ip = clientIp(request);
      return { ip, country: countries.countryOf(ip) };
    });
    await app.ready();
    return app;
  };

  beforeAll(async () => {
    [proxied, direct] = await Promise.all([server({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' }), server({})]);
  });
  afterAll(async () => {
    await Promise.all([proxied?.close(), direct?.close()]);
  });

  const seen = async (app: App, remoteAddress: string, forwardedFor?: string) => {
    const response = await app.inject({
      method: 'GET',
      url: '/ip',
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ ip: string | null; country: string }>();
  };

  it('follows X-Forwarded-For from a trusted proxy: the right-most address that is not a trusted proxy', async () => {
    expect(await seen(proxied, '10.0.0.2', '8.8.8.8')).toEqual({ ip: '8.8.8.8', country: 'US' });
    // A client's own header is the left part: whatever it claims, the proxy's appended entry wins.
    expect(await seen(proxied, '10.0.0.2', '195.175.39.39, 8.8.8.8')).toEqual({
      ip: '8.8.8.8',
      country: 'US',
    });
    // A chain of trusted proxies is walked through.
    expect(await seen(proxied, '127.0.0.1', '195.175.39.39, 10.9.9.9')).toEqual({
      ip: '195.175.39.39',
      country: 'TR',
    });
    expect(await seen(proxied, '::ffff:10.0.0.2', '2001:4860:4860::8888')).toEqual({
      ip: '2001:4860:4860::8888',
      country: 'US',
    });
    // Without the header the proxy itself is the client (and private: unknown).
    expect(await seen(proxied, '10.0.0.2')).toEqual({ ip: '10.0.0.2', country: 'unknown' });
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy, and without TRUSTED_PROXIES', async () => {
    expect(await seen(proxied, '203.0.113.7', '8.8.8.8')).toEqual({ ip: '203.0.113.7', country: 'unknown' });
    expect(await seen(proxied, '195.175.39.39', '8.8.8.8')).toEqual({ ip: '195.175.39.39', country: 'TR' });
    expect(await seen(direct, '10.0.0.2', '8.8.8.8')).toEqual({ ip: '10.0.0.2', country: 'unknown' });
    expect(await seen(direct, '::ffff:8.8.8.8', '195.175.39.39')).toEqual({ ip: '8.8.8.8', country: 'US' });
  });

  it('gives no address when a trusted proxy forwarded something that is not one', async () => {
    expect(await seen(proxied, '10.0.0.2', 'unknown')).toEqual({ ip: null, country: 'unknown' });
    expect(await seen(proxied, '10.0.0.2', '8.8.8.8:443')).toEqual({ ip: null, country: 'unknown' });
  });
});

describe('e-mail', () => {
  it('normalises the address and names its domain in ASCII', () => {
    expect(emailSignals('  Ayse.Yilmaz@Example.COM ')).toEqual({
      email: 'ayse.yilmaz@example.com',
      emailDomain: 'example.com',
      disposableEmail: false,
    });
    expect(emailSignals('kim@Bücher.example.')).toMatchObject({
      email: 'kim@xn--bcher-kva.example',
      emailDomain: 'xn--bcher-kva.example',
    });
    expect(emailSignals('first+tag@gmail.com').email).toBe('first+tag@gmail.com');
  });

  it('marks disposable domains and their subdomains from mailchecker’s list', () => {
    for (const address of ['bot@mailinator.com', 'bot@MX.Mailinator.com', 'bot@yopmail.com']) {
      expect(emailSignals(address).disposableEmail, address).toBe(true);
    }
    for (const address of ['ali@gmail.com', 'ali@outlook.com', 'ali@gmail.com.tr']) {
      expect(emailSignals(address).disposableEmail, address).toBe(false);
    }
  });

  it('has no address for what is not one', () => {
    for (const text of [
      null,
      undefined,
      '',
      'no-at-sign',
      '@example.com',
      'a@localhost',
      'a b@example.com',
      'a@-x.com',
      'a@x..com',
    ]) {
      expect(emailSignals(text), String(text)).toEqual({
        email: null,
        emailDomain: null,
        disposableEmail: false,
      });
    }
  });
});

describe('card and IP countries', () => {
  it('differ only when both are known and not the same', () => {
    expect(countriesDiffer('TR', 'US')).toBe(true);
    expect(countriesDiffer('tr', 'TR')).toBe(false);
    for (const [card, ip] of [
      ['unknown', 'US'],
      ['TR', 'unknown'],
      [null, 'US'],
      ['TR', undefined],
      ['unknown', 'unknown'],
      ['TUR', 'US'],
    ] as const) {
      expect(countriesDiffer(card, ip), `${card} ${ip}`).toBe(false);
    }
  });
});

describe('a card submission', () => {
  it('collects every signal but velocity, and nothing of the number beyond BIN and last four', () => {
    const signals = cardSubmissionSignals(
      {
        amount: 12_550n,
        currency: 'TRY',
        method: 'credit_card_tr',
        pan: '4242 4242 4242 4242',
        email: 'Bot@Mailinator.com',
        ip: '::ffff:8.8.8.8',
        cardCountry: 'tr',
      },
      { fingerprintKey: KEY, ipCountries: countries },
    );
    expect(signals).toEqual({
      amount: 12_550n,
      currency: 'TRY',
      method: 'credit_card_tr',
      bin: '42424242',
      last4: '4242',
      fingerprint: cardFingerprint(VISA, KEY),
      email: 'bot@mailinator.com',
      emailDomain: 'mailinator.com',
      disposableEmail: true,
      ip: '8.8.8.8',
      ipCountry: 'US',
      cardCountry: 'TR',
      countriesDiffer: true,
      velocity: undefined,
    });
    const text = JSON.stringify(signals, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(text).not.toContain(VISA);
    expect(text).not.toContain('4242 4242');
  });

  it('has an unknown card country without a BIN row, and then the countries never differ', () => {
    const signals = cardSubmissionSignals(
      {
        amount: 1n,
        currency: 'TRY',
        method: 'credit_card_international',
        pan: VISA,
        email: null,
        ip: null,
        cardCountry: null,
      },
      { fingerprintKey: KEY, ipCountries: countries },
    );
    expect(signals).toMatchObject({
      cardCountry: 'unknown',
      ipCountry: 'unknown',
      ip: null,
      countriesDiffer: false,
    });
  });
});

describe('configuration', () => {
  it('reads RISK_FINGERPRINT_KEY as 32 bytes of base64, and refuses anything else naming the variable', () => {
    const key = randomBytes(32);
    expect(loadConfig({ RISK_FINGERPRINT_KEY: key.toString('base64') }).risk.fingerprintKey).toEqual(key);
    expect(loadConfig({ RISK_FINGERPRINT_KEY: key.toString('base64url') }).risk.fingerprintKey).toEqual(key);
    expect(loadConfig({}).risk.fingerprintKey).toBeUndefined();
    for (const bad of [
      randomBytes(16).toString('base64'),
      'not base64 at all!',
      `${key.toString('base64')}AAAA`,
    ]) {
      expect(() => loadConfig({ RISK_FINGERPRINT_KEY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ RISK_FINGERPRINT_KEY: bad }), bad).toThrow(
        /RISK_FINGERPRINT_KEY must be 32 bytes/,
      );
    }
  });

  it('derives the key in production too, where ENCRYPTION_KEYS is required', () => {
    const production = loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEYS: generateEncryptionKeys('v1') });
    expect(production.risk.fingerprintKey).toBeUndefined();
  });

  it('uses the npm package’s database unless RISK_IP_COUNTRY_DATABASE names an existing file', () => {
    expect(databasePath).toMatch(
      /node_modules[/\\]@ip-location-db[/\\]geo-whois-asn-country-mmdb[/\\]geo-whois-asn-country\.mmdb$/,
    );
    const ipv4Only = path.join(path.dirname(databasePath), 'geo-whois-asn-country-ipv4.mmdb');
    expect(loadConfig({ RISK_IP_COUNTRY_DATABASE: ipv4Only }).risk.ipCountryDatabase).toBe(ipv4Only);
    for (const missing of ['/nonexistent/countries.mmdb', path.dirname(databasePath)]) {
      expect(() => loadConfig({ RISK_IP_COUNTRY_DATABASE: missing })).toThrow(
        /RISK_IP_COUNTRY_DATABASE names no file/,
      );
    }
  });
});
