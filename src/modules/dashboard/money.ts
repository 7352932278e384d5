import { minor, toMajorString } from '../../shared/money.js';
import type { Locale } from '../../web/i18n.js';
import { formatAmount } from '../checkout/format.js';

/**
 * An amount of minor units as the dashboard shows money: TRY as the checkout shows it ("1.234,50 TRY",
 * "TRY 1,234.50"), with a sign for a refund; USDT with its 6 decimals in the same style.
 */
export function formatMoney(amount: string, currency: 'TRY' | 'USDT', locale: Locale): string {
  const negative = amount.startsWith('-');
  const digits = negative ? amount.slice(1) : amount;
  const sign = negative ? '-' : '';
  if (currency === 'TRY') return `${sign}${formatAmount(digits, 'TRY', locale)}`;
  const [whole = '0', fraction = ''] = toMajorString('USDT', minor('USDT', BigInt(digits))).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, locale === 'tr' ? '.' : ',');
  return locale === 'tr' ? `${sign}${grouped},${fraction} USDT` : `${sign}USDT ${grouped}.${fraction}`;
}

/** How the money pages (the balance, the settlements) show amounts and exchange rates in the page's language. */
export function moneyViews(locale: Locale) {
  return {
    money: (amount: string, currency: 'TRY' | 'USDT' = 'TRY') => formatMoney(amount, currency, locale),
    rate: (value: string) => (locale === 'tr' ? value.replace('.', ',') : value),
  };
}
