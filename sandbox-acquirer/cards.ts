import type { DisputeKind, DisputeReason } from './dispute-reasons.js';

/** Card brands the sandbox recognises from the first digits of a number. */
export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'troy' | 'unknown';

/** The decline codes of the test cards, with the message the acquirer gives for each. */
export const DECLINE_MESSAGES = {
  insufficient_funds: 'The card has insufficient funds.',
  stolen_card: 'The card is reported stolen.',
  card_declined: 'The card was declined.',
  expired_card: 'The card has expired.',
  incorrect_cvc: "The card's security code is incorrect.",
  processing_error: 'An error occurred while processing the card.',
  do_not_honor: 'The issuer declined the card (do not honor).',
} as const;

export type DeclineCode = keyof typeof DECLINE_MESSAGES;

/** What the sandbox does with a card attempt. */
export type CardOutcome =
  | { readonly kind: 'succeeded' }
  | { readonly kind: 'challenge'; readonly alwaysFails: boolean }
  | { readonly kind: 'declined'; readonly code: DeclineCode };

/** What the issuer raises on a succeeded payment of a test card, after the acquirer's dispute delay. */
export interface CardDispute {
  readonly kind: DisputeKind;
  readonly reason: DisputeReason;
}

/** One row of the test card table of docs/sandbox-acquirer.md. */
export interface TestCard {
  readonly number: string;
  readonly brand: CardBrand;
  readonly outcome: CardOutcome;
  readonly raises?: CardDispute;
}

const SUCCEEDS = { kind: 'succeeded' } as const;

/**
 * The test card table of docs/sandbox-acquirer.md, by name, so that tests of the gateway can write
 * `TEST_CARDS.insufficientFunds.number`. Any expiry in the future and any 3-digit CVC work with them.
 * Every other Luhn-valid number succeeds, except those of the card-testing range (`CARD_TESTING_PREFIX`).
 */
export const TEST_CARDS = Object.freeze({
  visa: { number: '4242424242424242', brand: 'visa', outcome: { kind: 'succeeded' } },
  mastercard: { number: '5555555555554444', brand: 'mastercard', outcome: { kind: 'succeeded' } },
  troy: { number: '9792030394440796', brand: 'troy', outcome: { kind: 'succeeded' } },
  challenge: {
    number: '4000000000003220',
    brand: 'visa',
    outcome: { kind: 'challenge', alwaysFails: false },
  },
  challengeFails: {
    number: '4000008400001629',
    brand: 'visa',
    outcome: { kind: 'challenge', alwaysFails: true },
  },
  insufficientFunds: {
    number: '4000000000009995',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'insufficient_funds' },
  },
  stolenCard: {
    number: '4000000000009979',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'stolen_card' },
  },
  cardDeclined: {
    number: '4000000000000002',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'card_declined' },
  },
  expiredCard: {
    number: '4000000000000069',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'expired_card' },
  },
  incorrectCvc: {
    number: '4000000000000127',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'incorrect_cvc' },
  },
  processingError: {
    number: '4000000000000119',
    brand: 'visa',
    outcome: { kind: 'declined', code: 'processing_error' },
  },
  disputeFraudulent: {
    number: '4000000000000259',
    brand: 'visa',
    outcome: SUCCEEDS,
    raises: { kind: 'dispute', reason: 'fraudulent' },
  },
  disputeProductNotReceived: {
    number: '4000000000002685',
    brand: 'visa',
    outcome: SUCCEEDS,
    raises: { kind: 'dispute', reason: 'product_not_received' },
  },
  disputeInquiry: {
    number: '4000000000001976',
    brand: 'visa',
    outcome: SUCCEEDS,
    raises: { kind: 'inquiry', reason: 'fraudulent' },
  },
  earlyFraudWarning: {
    number: '4000000000005423',
    brand: 'visa',
    outcome: SUCCEEDS,
    raises: { kind: 'early_fraud_warning', reason: 'fraudulent' },
  },
  preDisputeAlert: {
    number: '4000000000007114',
    brand: 'visa',
    outcome: SUCCEEDS,
    raises: { kind: 'pre_dispute_alert', reason: 'fraudulent' },
  },
  disputeMastercard: {
    number: '5200000000000254',
    brand: 'mastercard',
    outcome: SUCCEEDS,
    raises: { kind: 'dispute', reason: 'fraudulent' },
  },
  disputeTroy: {
    number: '9792030000000257',
    brand: 'troy',
    outcome: SUCCEEDS,
    raises: { kind: 'dispute', reason: 'fraudulent' },
  },
} as const satisfies Record<string, TestCard>);

export type TestCardName = keyof typeof TEST_CARDS;

/** The Luhn (mod 10) check of a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The brand from the first digits: 4 visa, 51-55 and 2221-2720 mastercard, 34/37 amex, 9792 troy. */
export function cardBrand(number: string): CardBrand {
  if (number.startsWith('4')) return 'visa';
  const two = Number(number.slice(0, 2));
  const four = Number(number.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (number.startsWith('9792')) return 'troy';
  return 'unknown';
}

function testCard(number: string): TestCard | undefined {
  return Object.values(TEST_CARDS).find((card: TestCard) => card.number === number);
}

/**
 * What an authorization asks of 3-D Secure: `automatic`, the card decides (only the challenge cards open
 * one); `required`, every card that would succeed opens the challenge, which code 123456 passes.
 */
export type ThreeDSecure = 'automatic' | 'required';

const CHALLENGED = { kind: 'challenge', alwaysFails: false } as const;

/**
 * Every Luhn-valid number that begins with these digits is declined `do_not_honor`, as an issuer declines
 * numbers it never issued: what a card-testing bot's generated numbers meet (docs/sandbox-acquirer.md).
 */
export const CARD_TESTING_PREFIX = '4000012';
const DO_NOT_HONOR = { kind: 'declined', code: 'do_not_honor' } as const;

/** The outcome of an attempt with this (Luhn-valid) number: the test card's, the card-testing range's, or success. */
export function cardOutcome(number: string, threeDSecure: ThreeDSecure = 'automatic'): CardOutcome {
  const outcome =
    testCard(number)?.outcome ?? (number.startsWith(CARD_TESTING_PREFIX) ? DO_NOT_HONOR : SUCCEEDS);
  return threeDSecure === 'required' && outcome.kind === 'succeeded' ? CHALLENGED : outcome;
}

/** What the issuer raises after a payment with this number succeeded, if it is a dispute test card. */
export function cardDispute(number: string): CardDispute | null {
  return testCard(number)?.raises ?? null;
}
