import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee, defaultFeeRate } from './fees.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_PG_BIGINT = 2n ** 63n - 1n;

/**
 * An independent reading of product decision 21: exact quotient and remainder, rounded up when the
 * remainder is at least half the divisor; then the fixed part, then the cap.
 */
function referenceFee(amount: bigint, basisPoints: number, fixedMinor: bigint): bigint {
  const numerator = amount * BigInt(basisPoints);
  const quotient = numerator / 10_000n;
  const remainder = numerator % 10_000n;
  const rounded = remainder * 2n >= 10_000n ? quotient + 1n : quotient;
  const fee = rounded + fixedMinor;
  return fee < amount ? fee : amount;
}

const basisPoints = fc.integer({ min: 0, max: 10_000 });
const fixedMinor = fc.bigInt({ min: 0n, max: 1_000_000_000n });

describe('computeFee', () => {
  it('rounds the proportional part half up, adds the fixed part and caps at the amount', () => {
    expect(computeFee(10_000n, 350, 100n)).toEqual({ fee: 450n, net: 9_550n });
    expect(computeFee(12_550n, 350, 100n)).toEqual({ fee: 539n, net: 12_011n }); // 439.25 → 439
    expect(computeFee(10n, 5_000, 0n)).toEqual({ fee: 5n, net: 5n });
    expect(computeFee(1n, 5_000, 0n)).toEqual({ fee: 1n, net: 0n }); // 0.5 → 1
    expect(computeFee(3n, 5_000, 0n)).toEqual({ fee: 2n, net: 1n }); // 1.5 → 2
    expect(computeFee(1n, 4_999, 0n)).toEqual({ fee: 0n, net: 1n }); // 0.4999 → 0
    expect(computeFee(50n, 350, 100n)).toEqual({ fee: 50n, net: 0n }); // capped
    expect(computeFee(0n, 350, 100n)).toEqual({ fee: 0n, net: 0n });
    expect(computeFee(7n, 0, 0n)).toEqual({ fee: 0n, net: 7n });
    expect(computeFee(7n, 10_000, 0n)).toEqual({ fee: 7n, net: 0n });
  });

  it('is exact at 2^53 − 1 and at the largest PostgreSQL bigint', () => {
    // (2^53 − 1) × 350 / 10000 = 315251973915934.685 → 315251973915935, + 100
    expect(computeFee(MAX_SAFE, 350, 100n)).toEqual({
      fee: 315_251_973_916_035n,
      net: MAX_SAFE - 315_251_973_916_035n,
    });
    const { fee, net } = computeFee(MAX_PG_BIGINT, 9_999, 1_000_000_000n);
    expect(fee).toBe(referenceFee(MAX_PG_BIGINT, 9_999, 1_000_000_000n));
    expect(fee + net).toBe(MAX_PG_BIGINT);
  });

  it('refuses inputs outside the ranges of a fee schedule', () => {
    expect(() => computeFee(-1n, 350, 0n)).toThrow(RangeError);
    expect(() => computeFee(1n, -1, 0n)).toThrow(RangeError);
    expect(() => computeFee(1n, 10_001, 0n)).toThrow(RangeError);
    expect(() => computeFee(1n, 1.5, 0n)).toThrow(RangeError);
    expect(() => computeFee(1n, 350, -1n)).toThrow(RangeError);
  });

  it('uses the onboarding schedule as the default rate', () => {
    expect(defaultFeeRate('credit_card_tr')).toEqual({ basisPoints: 350, fixedMinor: 100n });
    expect(defaultFeeRate('credit_card_international')).toEqual({ basisPoints: 550, fixedMinor: 100n });
    expect(defaultFeeRate('bank_transfer')).toEqual({ basisPoints: 150, fixedMinor: 0n });
  });

  const properties = (amount: bigint, bps: number, fixed: bigint) => {
    const { fee, net } = computeFee(amount, bps, fixed);
    expect(fee).toBeGreaterThanOrEqual(0n);
    expect(fee).toBeLessThanOrEqual(amount);
    expect(fee + net).toBe(amount);
    expect(fee).toBe(referenceFee(amount, bps, fixed));
    // The rational form of round-half-up: floor((2·amount·bps + 10000) / 20000).
    const proportional = (amount * BigInt(bps) * 2n + 10_000n) / 20_000n;
    expect(fee).toBe(proportional + fixed < amount ? proportional + fixed : amount);
  };

  it('holds fee ≥ 0, fee ≤ amount, fee + net = amount for amounts up to 2^53 − 1', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: MAX_SAFE }), basisPoints, fixedMinor, properties), {
      numRuns: 2_000,
    });
  });

  it('holds beyond 2^53, up to the largest PostgreSQL bigint and past it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MAX_SAFE, max: MAX_PG_BIGINT * 4n }), basisPoints, fixedMinor, properties),
      { numRuns: 1_000 },
    );
  });

  it('rounds every exact half up (rare among random amounts, so built on purpose)', () => {
    // With basisPoints × d = 5000 and amount = d × (2k + 1): amount × basisPoints / 10000 = k + ½.
    const divisorsOf5000 = [1n, 2n, 4n, 5n, 8n, 10n, 20n, 25n, 40n, 50n, 100n, 125n, 200n, 250n, 500n, 625n];
    fc.assert(
      fc.property(
        fc.constantFrom(...divisorsOf5000),
        fc.bigInt({ min: 0n, max: MAX_PG_BIGINT / 2_000n }),
        (d, k) => {
          const amount = d * (2n * k + 1n);
          const bps = Number(5_000n / d);
          expect(computeFee(amount, bps, 0n)).toEqual({ fee: k + 1n, net: amount - k - 1n });
          properties(amount, bps, 0n);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('holds for small amounts, where the cap and the rounding matter most', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 20_000n }), basisPoints, fixedMinor, properties), {
      numRuns: 2_000,
    });
  });
});
