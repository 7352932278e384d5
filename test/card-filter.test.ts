/**
 * The card-number filter (issue 11, item 15; product decision 16 as refined in
 * docs/decisions/0011-untrusted-input.md): real card numbers of every brand are refused, spaced, dashed
 * or whole, in any member; millisecond timestamps and ordinary order ids pass, although one in ten of
 * them is Luhn-valid.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { cardScheme, containsCardNumber, luhnValid } from '../src/shared/card-numbers.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

/** Published test numbers of each scheme (the schemes' and the large processors' documentation). */
const BRAND_TEST_PANS: Record<string, string[]> = {
  visa: ['4242424242424242', '4111111111111111', '4012888888881881', '4222222222222', '4000056655665556'],
  mastercard: [
    '5555555555554444',
    '5105105105105100',
    '2223003122003222',
    '2221000000000009',
    '5200828282828210',
  ],
  amex: ['378282246310005', '371449635398431', '378734493671000', '340000000000009'],
  discover: ['6011111111111117', '6011000990139424', '6445644564456445', '6011981111111113'],
  diners: ['30569309025904', '38520000023237', '36227206271667', '3056930009020004'],
  jcb: ['3530111333300000', '3566002020360505', '3566111111111113'],
  unionpay: ['6200000000000005', '6205500000000000004', '6200000000000047'],
  troy: ['9792030394440796'],
  mir: ['2200000000000004'],
  maestro: ['6759649826438453', '5018000000000009', '6799990100000000019'],
  uatp: ['135410014004955'],
};

/** Every test card of the sandbox acquirer (docs/sandbox-acquirer.md). */
const SANDBOX_PANS = Object.values(TEST_CARDS).map((card) => card.number);

function withCheckDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit++) if (luhnValid(`${body}${digit}`)) return `${body}${digit}`;
  throw new Error('unreachable');
}

function grouped(pan: string, separator: string): string {
  const sizes = pan.length === 15 ? [4, 6, 5] : pan.length === 14 ? [4, 6, 4] : [4, 4, 4, 4, 4];
  const groups: string[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= pan.length) break;
    groups.push(pan.slice(at, at + size));
    at += size;
  }
  return groups.join(separator);
}

/** Millisecond timestamps from 2001 to 2096 (13 digits, before the first that starts with a 4). */
const msTimestamp = fc.integer({ min: 1_000_000_000_000, max: 3_999_999_999_999 });
const luhnValidTimestamp = msTimestamp.filter((ms) => luhnValid(String(ms)));
/**
 * Up to 2039: a microsecond or nanosecond timestamp starts with 1 (to 2033), then with 20 or 21,
 * before the first digits of Mir (2200) and Mastercard's 2-series (2221).
 */
const luhnValidRecentTimestamp = fc
  .integer({ min: 1_000_000_000_000, max: 2_199_999_999_999 })
  .filter((ms) => luhnValid(String(ms)));

describe('recognising card numbers (unit)', () => {
  it('every published test number is a Luhn-valid number of its brand', () => {
    for (const [brand, pans] of Object.entries(BRAND_TEST_PANS)) {
      for (const pan of pans) {
        expect(luhnValid(pan), pan).toBe(true);
        expect(cardScheme(pan), pan).toBeDefined();
        expect(brand === 'uatp' || cardScheme(pan) !== 'uatp').toBe(true);
      }
    }
  });

  it('refuses every brand test number and every sandbox test card, whole, spaced or dashed, in text', () => {
    for (const pan of [...Object.values(BRAND_TEST_PANS).flat(), ...SANDBOX_PANS]) {
      for (const text of [
        pan,
        grouped(pan, ' '),
        grouped(pan, '-'),
        `card: ${pan}.`,
        `pay with ${grouped(pan, ' ')} exp 12/30`,
        `ref-${grouped(pan, '-')}-x`,
      ]) {
        expect(containsCardNumber(text), text).toBe(true);
      }
    }
  });

  it('refuses card numbers grouped by any run of white space or dashes: tabs, line breaks, Unicode spaces', () => {
    const separators = [
      '\u00a0', // no-break space
      '\t',
      '  ',
      '\n',
      '\r\n',
      ' - ',
      '--',
      '\u202f', // narrow no-break space
      '\u2007', // figure space
      '\u3000', // ideographic space
      '\u200b', // zero-width space
      '\u2013', // en dash
      '\u2212', // minus sign
    ];
    for (const pan of [...Object.values(BRAND_TEST_PANS).flat(), ...SANDBOX_PANS]) {
      for (const separator of separators) {
        const text = `card ${grouped(pan, separator)} exp 12/30`;
        expect(containsCardNumber(text), JSON.stringify(text)).toBe(true);
      }
    }
  });

  it('refuses generated numbers of every brand range and length', () => {
    const prefixes: Array<[string, number[]]> = [
      ['4', [13, 16, 19]],
      ['51', [16]],
      ['2720', [16]],
      ['34', [15]],
      ['37', [15]],
      ['6011', [16, 19]],
      ['65', [16]],
      ['3528', [16, 19]],
      ['36', [14]],
      ['62', [16, 17, 18, 19]],
      ['9792', [16]],
      ['2204', [16]],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...prefixes),
        fc.integer({ min: 0, max: 3 }),
        fc.stringMatching(/^\d{20}$/),
        ([prefix, lengths], lengthIndex, filler) => {
          const length = lengths[lengthIndex % lengths.length] ?? 16;
          const pan = withCheckDigit(`${prefix}${filler}`.slice(0, length - 1));
          return containsCardNumber(pan) && containsCardNumber(grouped(pan, ' '));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('passes Luhn-valid millisecond timestamps, in references and alone', () => {
    fc.assert(
      fc.property(luhnValidTimestamp, fc.constantFrom('order-', 'ORD', 'inv_', '', 'ref '), (ms, prefix) => {
        return !containsCardNumber(`${prefix}${ms}`) && !containsCardNumber(String(ms));
      }),
      { numRuns: 20_000 },
    );
  });

  it('passes microsecond and nanosecond timestamps, snowflake ids and timestamps with suffixes', () => {
    fc.assert(
      fc.property(
        luhnValidRecentTimestamp,
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: 0, max: 999 }),
        (ms, micro, sequence) => {
          const texts = [
            `${ms}${String(micro).padStart(3, '0').slice(0, 3)}`,
            `${ms}${String(micro).padStart(6, '0')}`,
            `order-${ms}-${sequence}`,
            `${sequence}-${ms}`,
            `order ${sequence} ${ms}`,
            `2026-11-23-${ms}`,
          ];
          return texts.every((text) => !containsCardNumber(text));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('passes ordinary order ids, phone numbers and dates', () => {
    for (const text of [
      'order-1795397000005',
      '+90 532 123 45 67',
      '2026-11-23T10:00:00.000Z',
      'INV-2026-000123',
      '4242424242424241',
      '42424242424242424242424242',
      'ch_06h0k44q7zbgmswpkt3ybkcj13vem',
      '+90\u00a0532\u00a0123\u00a045\u00a067',
      'tel:  +90  532  123  45  67',
      '2026 - 11 - 23',
      '2026\u201311\u201323',
      'total\t1\u00a0250\u00a0000\tTRY\t2026-11-23',
      'qty 12  price 4999  order 1795397000005',
      'lines:\n1795397000005\n1795397000012\n',
    ]) {
      expect(containsCardNumber(text), text).toBe(false);
    }
  });
});

describe('card numbers grouped by dots, in other digits or URL-encoded (ADR 0056)', () => {
  const PANS = [...Object.values(BRAND_TEST_PANS).flat(), ...SANDBOX_PANS];
  /** The digits of a number in another script: its zero's code point plus each ASCII digit. */
  const inDigits = (pan: string, zero: number) =>
    [...pan].map((d) => (/[0-9]/.test(d) ? String.fromCodePoint(zero + Number(d)) : d)).join('');

  it('refuses every test number grouped by dots, whole sentences around it', () => {
    for (const pan of PANS) {
      for (const text of [
        grouped(pan, '.'),
        `card ${grouped(pan, '.')}.`,
        `ref:${grouped(pan, '%2E')}`,
        grouped(pan, '\uff0e'), // full-width full stop
      ]) {
        expect(containsCardNumber(text), text).toBe(true);
      }
    }
  });

  it('refuses every test number in full-width, Arabic-Indic, Persian, Devanagari and mathematical digits', () => {
    const zeros = [0xff10, 0x0660, 0x06f0, 0x0966, 0x09e6, 0x0e50, 0x1d7ce, 0x1d7ec];
    for (const pan of PANS) {
      for (const zero of zeros) {
        for (const text of [
          inDigits(pan, zero),
          inDigits(grouped(pan, ' '), zero),
          inDigits(grouped(pan, '-'), zero),
        ]) {
          expect(containsCardNumber(`card ${text}`), `${zero.toString(16)} ${text}`).toBe(true);
        }
      }
      // Full-width digits with full-width separators.
      expect(containsCardNumber(inDigits(grouped(pan, '\uff0d'), 0xff10))).toBe(true);
      expect(containsCardNumber(inDigits(grouped(pan, '\u3000'), 0xff10))).toBe(true);
      // Digits of two scripts in one number.
      expect(containsCardNumber(`${pan.slice(0, 8)}${inDigits(pan.slice(8), 0x0660)}`)).toBe(true);
    }
  });

  it('refuses every test number pasted from a URL: %20, +, %2D, %09, %C2%A0 between the groups', () => {
    for (const pan of PANS) {
      for (const separator of ['%20', '+', '%2D', '%2d', '%09', '%C2%A0']) {
        const text = `https://shop.example/pay?card=${grouped(pan, separator)}&x=1`;
        expect(containsCardNumber(text), text).toBe(true);
      }
    }
  });

  it('refuses generated numbers of every brand grouped by dots or written in full-width digits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('4', '51', '2720', '34', '6011', '3528', '36', '62', '9792', '2204'),
        fc.stringMatching(/^\d{20}$/),
        (prefix, filler) => {
          const length = prefix === '34' ? 15 : prefix === '36' ? 14 : 16;
          const pan = withCheckDigit(`${prefix}${filler}`.slice(0, length - 1));
          return containsCardNumber(grouped(pan, '.')) && containsCardNumber(inDigits(pan, 0xff10));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('passes decimals, IP addresses, versions, dotted dates, timestamps and phone numbers', () => {
    for (const text of [
      '1234.56',
      'total 4242.42 TRY',
      '1234567890123.45',
      '0.75',
      '192.168.100.200',
      'allow 192.168.100.200 192.168.100.201 203.0.113.255',
      '255.255.255.255 255.255.255.255 255.255.255.255',
      'v10.4.2',
      '2024.1105.3-beta.4',
      '1.2.3.4.5.6.7.8.9.10.11.12.13',
      '2026.11.23',
      '23.11.2026 10.00',
      '1764237600.123',
      '1764237600.123456',
      '1764237600123.456',
      '+90.532.123.45.67',
      '0532.123.4567',
      '1.234.567.890,12',
      '12.345.678.901,00',
      '4242.4242.4242.4241',
      // The same in other digits.
      '١٢٣٤٫٥٦',
      '٠٥٣٢ ١٢٣ ٤٥ ٦٧',
      '２０２６．１１．２３',
      '１７６４２３７６００１２３',
      '۱۹۲.۱۶۸.۱۰۰.۲۰۰',
    ]) {
      expect(containsCardNumber(text), text).toBe(false);
    }
  });

  it('passes Luhn-valid timestamps written in other digits, as the ASCII ones pass', () => {
    fc.assert(
      fc.property(luhnValidTimestamp, fc.constantFrom(0xff10, 0x0660, 0x06f0), (ms, zero) => {
        return !containsCardNumber(inDigits(String(ms), zero)) && !containsCardNumber(`${ms}.${ms % 1000}`);
      }),
      { numRuns: 5000 },
    );
  });

  it('passes Ethereum addresses and transaction hashes, whose digit runs are no card number', () => {
    // Each holds a Luhn-valid run in a card range, refused before ADR 0056.
    for (const text of [
      '0xabbd1e3c95f6f5601355409913ddc6eb61a4ddca',
      '0x8AD6844039471074430ED9E2486DE336D535EE7A',
      'ab063ea4762f1f040cfb06af6476890a83277d6540786549880e1f31d2995621',
      '0x5b3aa55c9291a4de8359bdbcb58dbab4a3d169637a41b4704086466409e0027f',
    ]) {
      expect(containsCardNumber(text), text).toBe(false);
    }
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (address, hash) =>
          !containsCardNumber(`0x${Buffer.from(address).toString('hex')}`) &&
          !containsCardNumber(Buffer.from(hash).toString('hex')),
      ),
      { numRuns: 20_000 },
    );
    // A card number beside an address or inside a longer hex text is still one.
    expect(containsCardNumber('0xabbd1e3c95f6f5601355409913ddc6eb61a4ddca 4242424242424242')).toBe(true);
    expect(containsCardNumber('deadbeef4242424242424242deadbeef')).toBe(true);
  });
});

describe('through the API', () => {
  let t: TestGateway;
  let merchant: Merchant;
  beforeAll(async () => {
    t = await startTestGateway();
    merchant = await createMerchant(t);
  });
  afterAll(async () => t?.close());

  const createCharge = (body: unknown) =>
    request<{ id: string } & ErrorBody>(`${t.urls.sandboxApi}/v1/charges`, {
      body,
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });

  it('accepts references and metadata holding Luhn-valid millisecond timestamps', async () => {
    const samples = new Set(fc.sample(luhnValidTimestamp, { numRuns: 40, seed: 11 }));
    for (const ms of samples) {
      const res = await createCharge(
        validCharge({
          merchantReference: `order-${ms}`,
          metadata: { createdAt: ms, createdAtText: String(ms), batch: `${ms}-1` },
        }),
      );
      expect(res.status, `${ms}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    // One body holding hundreds of them in metadata values.
    const many = fc.sample(luhnValidTimestamp, { numRuns: 300, seed: 12 });
    const metadata = Object.fromEntries(many.map((ms, index) => [`t${index}`, ms]));
    const res = await createCharge(validCharge({ metadata }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('refuses a card number sent as a JSON number above 2^53 by the number written, not its rounded double', async () => {
    // Luhn-valid as written; JSON.parse makes 9792030000000060 and 4242424242424242400 of them, which are not.
    for (const pan of ['9792030000000059', '4242424242424242428', '6799990100000000019']) {
      const res = await request<ErrorBody>(`${t.urls.sandboxApi}/v1/charges`, {
        rawBody: JSON.stringify(validCharge({ metadata: { pan: 0 } })).replace('"pan":0', `"pan":${pan}`),
        headers: { 'x-api-key': merchant.keys.sandbox.secret, 'content-type': 'application/json' },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues).toEqual([
        expect.objectContaining({
          path: 'metadata.pan',
          code: 'invalid_value',
          message: expect.stringContaining('card'),
        }),
      ]);
      expect(res.text).not.toContain(pan.slice(0, 6));
    }
  });

  it('refuses card numbers spaced with no-break spaces, tabs or repeated spaces', async () => {
    for (const separator of ['\u00a0', '\t', '  ']) {
      const res = await createCharge(
        validCharge({ metadata: { note: `card ${grouped('4242424242424242', separator)}` } }),
      );
      expect(res.status, JSON.stringify(separator)).toBe(400);
      expect(res.body.error.details?.issues).toContainEqual(
        expect.objectContaining({ path: 'metadata.note', code: 'invalid_value' }),
      );
    }
  });

  it('refuses every brand test number and sandbox test card, naming the member', async () => {
    for (const pan of [...Object.values(BRAND_TEST_PANS).flat(), ...SANDBOX_PANS]) {
      const res = await createCharge(validCharge({ metadata: { note: `card ${grouped(pan, ' ')}` } }));
      expect(res.status, pan).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues).toContainEqual(
        expect.objectContaining({ path: 'metadata.note', code: 'invalid_value' }),
      );
      expect(res.text).not.toContain(pan.slice(0, 6));
    }
  });

  it('refuses card numbers grouped by dots, in other digits or URL-encoded, naming the member', async () => {
    for (const note of [
      '4242.4242.4242.4242',
      '４２４２４２４２４２４２４２４２',
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢',
      '۴۲۴۲-۴۲۴۲-۴۲۴۲-۴۲۴۲',
      'https://shop.example/?c=4242%204242%204242%204242',
    ]) {
      const res = await createCharge(validCharge({ metadata: { note } }));
      expect(res.status, note).toBe(400);
      expect(res.body.error.details?.issues).toEqual([
        expect.objectContaining({ path: 'metadata.note', code: 'invalid_value' }),
      ]);
      expect(res.text).not.toContain(note);
    }
    const reference = await createCharge(
      validCharge({ merchantReference: 'order ４２４２．４２４２．４２４２．４２４２' }),
    );
    expect(reference.status).toBe(400);
    expect(reference.body.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'merchantReference', code: 'invalid_value' }),
    ]);
  });

  it('accepts decimals, IP addresses, versions, timestamps, phones, wallet addresses and hashes', async () => {
    const res = await createCharge(
      validCharge({
        merchantReference: `INV.2026.${Date.now()}`,
        metadata: {
          amount: '1234567890123.45',
          ips: '192.168.100.200 192.168.100.201',
          version: 'v10.4.2-beta.3',
          at: '1764237600.123456',
          phone: '+90.532.123.45.67',
          arabicPhone: '٠٥٣٢ ١٢٣ ٤٥ ٦٧',
          date: '２０２６．１１．２３',
          wallet: '0xabbd1e3c95f6f5601355409913ddc6eb61a4ddca',
          txHash: 'ab063ea4762f1f040cfb06af6476890a83277d6540786549880e1f31d2995621',
        },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
