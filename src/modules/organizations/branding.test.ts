import { describe, expect, it } from 'vitest';
import { checkBranding, contrastRatio, isUsableBrandColor, shownRatio, sniffLogo } from './branding.js';

const bytes = (...values: number[]) => new Uint8Array(values);
const text = (value: string) => new TextEncoder().encode(value);

describe('the WCAG contrast rule of the brand colour', () => {
  it('computes the WCAG 2 contrast ratio', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    // The well-known limits of AA on white: #767676 passes (4.54:1), #777777 does not (4.48:1).
    expect(shownRatio(contrastRatio('#767676', '#ffffff'))).toBe(4.54);
    expect(shownRatio(contrastRatio('#777777', '#ffffff'))).toBe(4.47);
    expect(contrastRatio('#0b5cad', '#ffffff')).toBeGreaterThan(6);
  });

  it('never shows a failing ratio rounded up to the limit', () => {
    expect(shownRatio(4.4999)).toBe(4.49);
    expect(shownRatio(4.5)).toBe(4.5);
  });

  it('accepts only #rrggbb colours with at least 4.5:1 against white', () => {
    expect(isUsableBrandColor('#767676')).toBe(true);
    expect(isUsableBrandColor('#777777')).toBe(false);
    expect(isUsableBrandColor('#0B5CAD')).toBe(false); // the stored form is lower case
    expect(isUsableBrandColor('#0b5')).toBe(false);
  });
});

describe('the logo check by magic bytes', () => {
  it('recognises PNG, JPEG and WebP by their first bytes only', () => {
    expect(sniffLogo(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('image/png');
    expect(sniffLogo(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffLogo(text('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
    expect(sniffLogo(text('RIFF\u0000\u0000\u0000\u0000WAVEfmt '))).toBeUndefined();
    expect(sniffLogo(text('GIF89a'))).toBeUndefined();
    expect(sniffLogo(text('<html><script>alert(1)</script>'))).toBeUndefined();
    expect(sniffLogo(bytes())).toBeUndefined();
  });

  it('tells SVG apart, with a prolog, a byte-order mark, a comment or leading space', () => {
    for (const svg of [
      '<svg xmlns="http://www.w3.org/2000/svg"/>',
      '<?xml version="1.0"?><svg/>',
      '\uFEFF  <SVG/>',
      '<!-- logo --><svg/>',
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" ""><svg/>',
    ])
      expect(sniffLogo(text(svg)), svg).toBe('svg');
  });
});

describe('checkBranding', () => {
  it('reports every problem at once', () => {
    const checked = checkBranding({
      displayName: '  ',
      brandColor: '#777777',
      logo: { action: 'set', bytes: text('<svg/>') },
    });
    expect(checked).toEqual({
      ok: false,
      issues: {
        displayName: { problem: 'required' },
        brandColor: { problem: 'contrast', color: '#777777', ratio: 4.47, min: 4.5 },
        logo: { problem: 'svg' },
      },
    });
  });

  it('trims the name, lower-cases the colour and refuses control and direction characters', () => {
    const checked = checkBranding({
      displayName: ' Shop ',
      brandColor: ' #0B5CAD ',
      logo: { action: 'keep' },
    });
    expect(checked).toMatchObject({ ok: true, displayName: 'Shop', brandColor: '#0b5cad' });
    expect(checkBranding({ displayName: 'A', brandColor: '', logo: { action: 'keep' } })).toMatchObject({
      ok: true,
      brandColor: null,
    });
    for (const name of ['Shop\nLtd', 'Shop\u202egnp', 'Tab\there'])
      expect(checkBranding({ displayName: name, brandColor: '', logo: { action: 'keep' } })).toEqual({
        ok: false,
        issues: { displayName: { problem: 'control_characters' } },
      });
    expect(checkBranding({ displayName: 'ş'.repeat(200), brandColor: '', logo: { action: 'keep' } }).ok).toBe(
      true,
    );
    expect(checkBranding({ displayName: 'ş'.repeat(201), brandColor: '', logo: { action: 'keep' } })).toEqual(
      { ok: false, issues: { displayName: { problem: 'too_long', max: 200 } } },
    );
    for (const color of ['red', '#12345g', '#1234567', '0b5cad', '#abc'])
      expect(checkBranding({ displayName: 'A', brandColor: color, logo: { action: 'keep' } })).toEqual({
        ok: false,
        issues: { brandColor: { problem: 'format' } },
      });
  });

  it('refuses an empty, an oversize or an unknown logo', () => {
    const check = (logo: Uint8Array) =>
      checkBranding({ displayName: 'A', brandColor: '', logo: { action: 'set', bytes: logo } });
    expect(check(bytes())).toEqual({ ok: false, issues: { logo: { problem: 'empty' } } });
    const big = new Uint8Array(256 * 1024 + 1);
    big.set([0xff, 0xd8, 0xff]);
    expect(check(big)).toEqual({
      ok: false,
      issues: { logo: { problem: 'too_large', bytes: 262145, max: 262144 } },
    });
    expect(check(big.subarray(0, 256 * 1024))).toMatchObject({
      ok: true,
      logo: { contentType: 'image/jpeg' },
    });
    expect(check(text('GIF89a....'))).toEqual({ ok: false, issues: { logo: { problem: 'unsupported' } } });
  });
});
