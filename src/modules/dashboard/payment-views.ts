import type { Locale } from '../../web/i18n.js';
import { formatAmount } from '../checkout/format.js';
import type { ChargeDetails } from '../charges/retrieve.js';
import type { RefundView } from '../refunds/schemas.js';
import { format } from './i18n.js';
import type { PaymentMessages } from './payment-i18n.js';

/**
 * An amount of TRY as a merchant types it ("125.50", "125,50", "125"), in minor units; undefined when it
 * is not one. No thousands separators, at most two decimals, at most 2^53 - 1 minor units; never a float.
 */
export function parseAmount(text: string): bigint | undefined {
  const match = /^([0-9]{1,14})(?:[.,]([0-9]{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const value = BigInt(match[1] ?? '0') * 100n + BigInt((match[2] ?? '').padEnd(2, '0') || '0');
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : value;
}

/**
 * The amount a confirmation page confirms: the one typed, or all of `whole` when none is; undefined when
 * what was typed is not a positive amount.
 */
export function amountToConfirm(typed: string, whole: bigint): bigint | undefined {
  if (typed === '') return whole;
  const parsed = parseAmount(typed);
  return parsed === undefined || parsed <= 0n ? undefined : parsed;
}

/** TRY minor units as the dashboard shows money, with a sign for a negative amount (a ledger debit). */
export function formatSigned(amount: string, locale: Locale): string {
  const negative = amount.startsWith('-');
  return `${negative ? '-' : ''}${formatAmount(negative ? amount.slice(1) : amount, 'TRY', locale)}`;
}

export function negate(amount: string): string {
  return (-BigInt(amount)).toString();
}

/** What refunds did to a charge whose status stays `succeeded`: all of it, part of it, or nothing. */
export function refundStateOf(charge: {
  amount: string;
  amountRefunded: string;
}): 'full' | 'partial' | undefined {
  const refunded = BigInt(charge.amountRefunded);
  if (refunded <= 0n) return undefined;
  return refunded >= BigInt(charge.amount) ? 'full' : 'partial';
}

interface MoneyLine {
  kind: string;
  account: string;
  /** The posting as the ledger holds it: debits positive, credits negative. */
  amount: string;
  createdAt: Date | string;
  label: string;
  /** From the merchant's side: a change of its balance signed (+ credited, − taken), other lines unsigned. */
  shown: string;
}

/**
 * The charge's ledger lines as the merchant reads them. A posting's sign is the ledger's (a credit to the
 * merchant's pending account is negative), which read as "-TRY 120.11" for the merchant's own money: the
 * merchant's lines are signed from its side, the customer's and the fee's are amounts without a sign.
 */
export function moneyLinesOf(
  entries: ReadonlyArray<{
    kind: string;
    createdAt: Date | string;
    postings: ReadonlyArray<{ account: string; amount: string }>;
  }>,
  m: PaymentMessages,
  locale: Locale,
): MoneyLine[] {
  return entries.flatMap((entry) =>
    entry.postings.map((posting) => {
      const amount = BigInt(posting.amount);
      const magnitude = (amount < 0n ? -amount : amount).toString();
      const ours = posting.account === 'merchant_pending';
      const sign = amount < 0n ? '+' : '-';
      return {
        kind: entry.kind,
        account: posting.account,
        amount: posting.amount,
        createdAt: entry.createdAt,
        label:
          m.moneyLines[`${entry.kind}:${posting.account}`] ??
          `${m.ledgerKinds[entry.kind] ?? entry.kind} · ${m.accounts[posting.account] ?? posting.account}`,
        shown: ours
          ? `${sign}${formatAmount(magnitude, 'TRY', locale)}`
          : formatAmount(magnitude, 'TRY', locale),
      };
    }),
  );
}

interface TimelineItem {
  at: string;
  kind: string;
  text: string;
}

/** What the charge's data says happened, oldest first. */
export function timelineOf(
  details: ChargeDetails,
  chargeRefunds: RefundView[],
  m: PaymentMessages,
  money: (amount: string) => string,
): TimelineItem[] {
  const { charge } = details;
  const items: TimelineItem[] = [{ at: charge.createdAt, kind: 'created', text: m.timeline.created }];
  // Each card attempt as the checkout recorded it; a charge attempted before attempts were recorded
  // (migration 0023) shows the count and the last card instead.
  for (const attempt of details.attempts) {
    items.push({
      at: attempt.at,
      kind: `attempt-${attempt.outcome}`,
      text: [
        format(m.timeline.attempt, { number: attempt.number }),
        m.timeline.attemptOutcomes[attempt.outcome],
        attempt.card === null
          ? ''
          : attempt.card.brand === null
            ? format(m.timeline.attemptCardNoBrand, { last4: attempt.card.last4 })
            : format(m.timeline.attemptCard, { brand: attempt.card.brand, last4: attempt.card.last4 }),
        attempt.failureCode === null ? '' : format(m.timeline.declineCode, { code: attempt.failureCode }),
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (details.cardAttempts > 0 && details.attempts.length === 0) {
    const card = charge.card;
    // The gateway keeps the count and the last card, not each attempt's time: the last attempt is when a
    // pending charge last changed, or when a final one ended (a refund changes a charge later).
    items.push({
      at: charge.status === 'pending' ? charge.updatedAt : (details.finalizedAt ?? charge.updatedAt),
      kind: 'attempts',
      text: [
        format(m.timeline.attempts, { count: details.cardAttempts }),
        card ? format(m.timeline.lastCard, { brand: card.brand, last4: card.last4 }) : '',
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (charge.status === 'pending' && charge.providerStatus === 'requires_action') {
    items.push({ at: charge.updatedAt, kind: 'three-ds', text: m.timeline.threeDs });
  }
  for (const notification of details.notifications) {
    const card = notification.card;
    items.push({
      at: notification.receivedAt,
      kind: 'notification',
      text: [
        format(m.timeline.notification, { type: notification.type, outcome: notification.outcome }),
        card ? format(m.timeline.lastCard, { brand: card.brand, last4: card.last4 }) : '',
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (details.finalizedAt !== null && charge.status !== 'pending') {
    items.push({ at: details.finalizedAt, kind: charge.status, text: m.timeline[charge.status] });
  }
  for (const refund of chargeRefunds) {
    items.push({
      at: refund.createdAt,
      kind: 'refund',
      text: format(m.timeline.refund, {
        amount: money(refund.amount),
        status: m.refundStatuses[refund.status],
      }),
    });
  }
  if (charge.status === 'pending') {
    items.push({ at: charge.expiresAt, kind: 'expires', text: m.timeline.expires });
  }
  return items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
