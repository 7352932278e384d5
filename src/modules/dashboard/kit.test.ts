import { describe, expect, it } from 'vitest';
import { languageHref } from './kit.js';

describe('the language link of a dashboard page', () => {
  it('keeps the query of the page (filters, cursor, search) and sets only the language', () => {
    expect(languageHref('/dashboard/payments?status=succeeded&q=order-1&lang=en', 'tr')).toBe(
      '?status=succeeded&q=order-1&lang=tr',
    );
    expect(languageHref('/dashboard', 'en')).toBe('?lang=en');
  });

  it('encodes what it keeps, so a crafted query stays a query of the same page', () => {
    const href = languageHref('/dashboard/payments?q=%22%3E%3Cscript%3E&next=%2F%2Fevil.example', 'tr');
    expect(href.startsWith('?')).toBe(true);
    expect(href).not.toContain('<');
    expect(new URLSearchParams(href.slice(1)).get('q')).toBe('"><script>');
  });
});
