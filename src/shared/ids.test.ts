import { randomBytes } from 'node:crypto';
import { base32crockford } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { crockfordBase32, isId, newId } from './ids.js';

describe('crockfordBase32', () => {
  it("gives @scure/base's lowercase Crockford base32, for an id's 18 bytes and other lengths", () => {
    const inputs = [Buffer.alloc(18), Buffer.alloc(18, 0xff), Buffer.alloc(0)];
    for (let length = 1; length <= 40; length++) inputs.push(randomBytes(length));
    for (let index = 0; index < 5_000; index++) inputs.push(randomBytes(18));
    for (const bytes of inputs)
      expect(crockfordBase32(bytes)).toBe(base32crockford.encode(bytes).toLowerCase());
  });
});

describe('newId', () => {
  it('makes ids of the documented shape that sort by their time', () => {
    const early = newId('ch', new Date('2026-01-01T00:00:00.000Z'));
    const late = newId('ch', new Date('2026-01-01T00:00:00.001Z'));
    expect(isId('ch', early)).toBe(true);
    expect(early).toMatch(/^ch_[0-9a-hjkmnp-tv-z]{29}$/);
    expect(early < late).toBe(true);
    expect(early.slice(0, 13)).not.toBe(late.slice(0, 13));
  });

  it('never repeats the random part, across many refills of its random pool', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const count = 20_000; // about 60 pools of 4 096 bytes
    const bodies = new Set<string>();
    for (let index = 0; index < count; index++) bodies.add(newId('txn', now).slice(4));
    expect(bodies.size).toBe(count);
  });

  it('spreads its random bits evenly (no byte of the pool reused or left zero)', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    // The random part's next-to-last character: 5 random bits (the last one carries 4), uniform if every random byte is fresh.
    const counts = new Map<string, number>();
    const draws = 32_000;
    for (let index = 0; index < draws; index++) {
      const last = newId('evt', now).slice(-2, -1);
      counts.set(last, (counts.get(last) ?? 0) + 1);
    }
    // 32 symbols of 1 000 expected each; a zeroed or repeated byte would pile up on a few of them.
    expect(counts.size).toBe(32);
    for (const seen of counts.values()) expect(seen).toBeGreaterThan(800);
  });
});
