import { describe, expect, it } from 'vitest';
import { counted, fillMessage, LOCALES, pluralForm } from './i18n.js';

describe('counts in messages', () => {
  it('picks the plural form Intl.PluralRules gives each supported language', () => {
    for (const locale of LOCALES) {
      const rules = new Intl.PluralRules(locale);
      for (let n = 0; n <= 1_000; n++) expect(pluralForm(n), `${locale} ${n}`).toBe(rules.select(n));
    }
  });

  it('fills the form of the count, the number for #, and the plain placeholders', () => {
    const message = '{count, plural, one {# attempt} other {# attempts}} to {url}';
    expect(fillMessage(message, { count: 1, url: 'https://x.example' })).toBe(
      '1 attempt to https://x.example',
    );
    expect(fillMessage(message, { count: 0, url: 'u' })).toBe('0 attempts to u');
    expect(fillMessage(message, { count: '12', url: 'u' })).toBe('12 attempts to u');
    // A value that is missing leaves its placeholder, as before.
    expect(fillMessage(message, { url: 'u' })).toBe(
      '{count, plural, one {# attempt} other {# attempts}} to u',
    );
    expect(counted(1, 'payment', 'payments')).toBe('1 payment');
    expect(counted(3, 'payment', 'payments')).toBe('3 payments');
  });
});
