import { luhnValid } from '../../shared/card-numbers.js';
import type { CardDetails } from '../acquirer/types.js';

/**
 * The card form's checks (product decision 18), the same rules as checkout.js runs in the browser and as
 * the acquirer applies: a Luhn-valid number of 12 to 19 digits, an expiry not before the current month,
 * a CVC of 3 or 4 digits and a holder name.
 */
export const CARD_FIELDS = ['holderName', 'cardNumber', 'expiry', 'cvc'] as const;
export type CardField = (typeof CARD_FIELDS)[number];

export type CardIssue =
  'required' | 'invalid_name' | 'invalid_number' | 'invalid_expiry' | 'expired' | 'invalid_cvc';

export interface CardForm {
  holderName?: string | undefined;
  cardNumber?: string | undefined;
  expiry?: string | undefined;
  cvc?: string | undefined;
}

export type CardCheck =
  | { ok: true; card: CardDetails }
  | {
      ok: false;
      issues: Partial<Record<CardField, CardIssue>>;
      /** What the form may show again: never the number or the CVC, nor anything that could be one. */
      keep: { holderName: string; expiry: string };
    };

export const CARD_LIMITS = { holderName: 100, cardNumber: 30, expiry: 9, cvc: 4 } as const;

const EXPIRY = /^(\d{1,2})\s*\/?\s*(\d{2}|\d{4})$/;

/** "MM/YY", "MM / YY", "MMYY" or "MM/YYYY"; undefined when it is none of them or the month is not 1 to 12. */
export function parseExpiry(text: string): { month: number; year: number } | undefined {
  const match = EXPIRY.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  // "1225" reads as month 12, year 25, not as month 1225.
  if (match[1].length === 1 && match[2].length === 2 && !/[\s/]/.test(text.trim())) return undefined;
  const month = Number(match[1]);
  const year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12 || year < 2000 || year > 2099) return undefined;
  return { month, year };
}

/** Spaces and dashes between digit groups are allowed, as printed on cards. */
export function normalizeCardNumber(text: string): string {
  return text.replace(/[\s-]/g, '');
}

export function checkCard(form: CardForm, now: Date): CardCheck {
  const issues: Partial<Record<CardField, CardIssue>> = {};
  const holderName = (form.holderName ?? '').trim().replace(/\s+/g, ' ');
  const number = normalizeCardNumber(form.cardNumber ?? '');
  const expiryText = (form.expiry ?? '').trim();
  const cvc = (form.cvc ?? '').trim();

  if (holderName === '') issues.holderName = 'required';
  // A name with digits is most likely a number typed in the wrong field: it is refused, never shown again.
  else if (
    /\d/.test(holderName) ||
    /\p{Cc}/u.test(holderName) ||
    holderName.length > CARD_LIMITS.holderName
  ) {
    issues.holderName = 'invalid_name';
  }

  if (number === '') issues.cardNumber = 'required';
  else if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) issues.cardNumber = 'invalid_number';

  const expiry = parseExpiry(expiryText);
  if (expiryText === '') issues.expiry = 'required';
  else if (!expiry) issues.expiry = 'invalid_expiry';
  else if (expiry.year * 12 + expiry.month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) {
    issues.expiry = 'expired';
  }

  if (cvc === '') issues.cvc = 'required';
  else if (!/^\d{3,4}$/.test(cvc)) issues.cvc = 'invalid_cvc';

  if (Object.keys(issues).length > 0 || !expiry) {
    return {
      ok: false,
      issues,
      keep: {
        holderName: issues.holderName === 'invalid_name' ? '' : holderName,
        expiry: expiryText.length <= CARD_LIMITS.expiry && /^[\d\s/]*$/.test(expiryText) ? expiryText : '',
      },
    };
  }
  return {
    ok: true,
    card: { number, expMonth: expiry.month, expYear: expiry.year, cvc, holderName },
  };
}
