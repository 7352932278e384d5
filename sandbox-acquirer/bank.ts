import { randomBytes } from 'node:crypto';
import { base32crockford } from '@scure/base';
import { sha256Hex } from '../src/shared/crypto.js';

/** Who the customer pays a bank transfer to. */
export const SANDBOX_ACCOUNT_HOLDER = 'Sandbox Acquirer A.Ş.';

/** A bank code that no Turkish bank uses (real ones are 00010 Ziraat, 00062 Garanti …). */
const SANDBOX_BANK_CODE = '00999';

/** ISO 13616 check digits: 98 minus (BBAN + country + "00", letters as 10…35) mod 97. */
export function ibanCheckDigits(countryCode: string, bban: string): string {
  const remainder = mod97(`${bban}${countryCode}00`);
  return String(98 - remainder).padStart(2, '0');
}

/** Whether an IBAN's check digits are right (mod 97 of the rearranged IBAN is 1). */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(iban)) return false;
  return mod97(`${iban.slice(4)}${iban.slice(0, 4)}`) === 1;
}

function mod97(alphanumeric: string): number {
  let remainder = 0;
  for (const char of alphanumeric) {
    const value = /[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

/**
 * A Turkish IBAN (TR, 2 check digits, 5-digit bank code, a reserved 0, 16-digit account) of a virtual
 * account of this payment: derived from the payment id, so it is stable and differs between payments.
 */
export function sandboxIban(paymentId: string): string {
  const account = (BigInt(`0x${sha256Hex(paymentId)}`) % 10n ** 16n).toString().padStart(16, '0');
  const bban = `${SANDBOX_BANK_CODE}0${account}`;
  return `TR${ibanCheckDigits('TR', bban)}${bban}`;
}

/** What the customer writes in the transfer description: "SA" and 8 Crockford base32 characters. */
export function newPaymentReferenceCode(): string {
  return `SA${base32crockford.encode(randomBytes(5))}`;
}
