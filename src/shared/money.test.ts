import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee } from '../modules/ledger/fees.js';
import {
  applyBasisPoints,
  convert,
  formatMinor,
  formatRate,
  lessSpread,
  minor,
  MoneyError,
  parseMajor,
  parseMinor,
  parseRate,
  toMajorString,
  type Minor,
} from './money.js';

const tryAmount = fc.bigInt({ min: 0n, max: 10n ** 15n }).map((value) => minor('TRY', value));
/** A TRY -> USDT rate with up to 8 decimals, between 0.00000001 and 1000. */
const usdtRate = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 11n }), fc.integer({ min: 0, max: 8 }))
  .map(([units, decimals]) => {
    const digits = units.toString().padStart(decimals + 1, '0');
    const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
    return parseRate('TRY', 'USDT', text);
  });

describe('minor units', () => {
  it('round-trips the decimal strings of minor units and of major units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (value) => {
        expect(parseMinor('TRY', formatMinor(minor('TRY', value)))).toBe(value);
      }),
    );
    fc.assert(
      fc.property(tryAmount, (amount) => {
        expect(parseMajor('TRY', toMajorString('TRY', amount))).toBe(amount);
      }),
    );
    expect(toMajorString('TRY', minor('TRY', 12550))).toBe('125.50');
    expect(toMajorString('USDT', minor('USDT', 5))).toBe('0.000005');
    expect(toMajorString('TRY', minor('TRY', -7))).toBe('-0.07');
  });

  it('refuses what is not an exact amount instead of rounding it', () => {
    for (const text of ['1.5', '01', '', ' 1', '1e3', '0x10', '+1', '٣']) {
      expect(() => parseMinor('TRY', text), text).toThrow(MoneyError);
    }
    expect(() => parseMajor('TRY', '1.001')).toThrow(MoneyError);
    expect(() => minor('TRY', 0.5)).toThrow(MoneyError);
    expect(() => minor('TRY', Number.MAX_SAFE_INTEGER + 1)).toThrow(MoneyError);
  });
});

describe('basis points', () => {
  it('rounds half up exactly as the fee rule of product decision 21 does', () => {
    fc.assert(
      fc.property(tryAmount, fc.integer({ min: 0, max: 10_000 }), (amount, bps) => {
        expect(applyBasisPoints(amount, bps, 'half-up')).toBe(computeFee(amount, bps, 0n).fee);
      }),
    );
    expect(applyBasisPoints(minor('TRY', 50), 100, 'half-up')).toBe(1n); // 0.5 -> 1
    expect(applyBasisPoints(minor('TRY', 49), 100, 'half-up')).toBe(0n);
    expect(applyBasisPoints(minor('TRY', 199), 100, 'down')).toBe(1n);
  });
});

describe('conversion at an exact rate', () => {
  it('rounds down: the USDT paid is never worth more than the TRY, and one unit more would be', () => {
    fc.assert(
      fc.property(tryAmount, usdtRate, (amount, rate) => {
        const { converted } = convert(amount, rate, 'down');
        // Worth in USDT minor units, compared without rounding: converted <= amount / 100 × rate × 10^6.
        const exact = amount * rate.numerator * 10n ** 6n;
        const scale = 100n * rate.denominator;
        expect(converted * scale <= exact).toBe(true);
        expect((converted + 1n) * scale > exact).toBe(true);
      }),
    );
  });

  it('says how much TRY the payout covers; the rest stays in the balance and nothing is lost', () => {
    fc.assert(
      fc.property(tryAmount, usdtRate, (amount, rate) => {
        const { converted, covered } = convert(amount, rate, 'down');
        expect(covered >= 0n && covered <= amount).toBe(true);
        // `covered` is enough to buy `converted`, and it is the least amount that is.
        expect(convert(covered, rate, 'down').converted).toBe(converted);
        if (covered > 0n) {
          expect(convert((covered - 1n) as Minor<'TRY'>, rate, 'down').converted < converted).toBe(true);
        }
      }),
    );
    const rate = parseRate('TRY', 'USDT', '0.028731');
    // 1,000.00 TRY at 0.028731 = 28.731 USDT exactly.
    expect(convert(minor('TRY', 100_000), rate, 'down')).toEqual({
      converted: 28_731_000n,
      covered: 100_000n,
    });
  });

  it('keeps a spread exact and round-trips decimal rates', () => {
    fc.assert(
      fc.property(usdtRate, (rate) => {
        expect(lessSpread(rate, 0)).toEqual(rate);
        expect(parseRate('TRY', 'USDT', formatRate(rate))).toEqual(rate);
      }),
    );
    const rate = parseRate('TRY', 'USDT', '0.03');
    expect(formatRate(lessSpread(rate, 150))).toBe('0.02955');
    for (const text of ['0', '0.0', '-1', '1e-3', 'abc', '.5', '']) {
      expect(() => parseRate('TRY', 'USDT', text), text).toThrow(MoneyError);
    }
  });
});
