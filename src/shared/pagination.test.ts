import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from './pagination.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('cursor codec', () => {
  const cursors = createCursorCodec(randomBytes(32)).for({ list: 'charges', organizationId: 'org_1' });
  const createdAt = new Date('2026-11-25T10:00:00.000Z');

  it('decodes what it encoded', () => {
    expect(cursors.decode(cursors.encode(createdAt, 'ch_abc'))).toEqual({
      ok: true,
      value: { createdAt, id: 'ch_abc' },
    });
  });

  it('refuses a signature spelled another way for the same bytes (the unused bits of its last character)', () => {
    for (let i = 0; i < 50; i += 1) {
      const cursor = cursors.encode(new Date(createdAt.getTime() + i), `ch_${i}`);
      const last = ALPHABET.indexOf(cursor.at(-1) ?? '');
      // 16 bytes are 22 characters whose last carries 2 bits: its 4 low bits are not data.
      const respelled = `${cursor.slice(0, -1)}${ALPHABET[last ^ 0b0001]}`;
      expect(Buffer.from(respelled.split('.')[1] ?? '', 'base64url')).toEqual(
        Buffer.from(cursor.split('.')[1] ?? '', 'base64url'),
      );
      expect(cursors.decode(respelled)).toEqual({ ok: false, error: { code: 'invalid_cursor' } });
    }
  });
});
