// The ratio pages' data made as a merchant's customers make it: card payments through the sandbox
// acquirer, whose dispute and fraud-warning test cards raise their case a moment later (the gateway
// needs SANDBOX_ACQUIRER_DISPUTE_DELAY_MS low for that moment to be short).
import { cardDispute, TEST_CARDS, type TestCardName } from '../../sandbox-acquirer/cards.js';
import { payByCard, postCharge } from './charges.js';
import type { TestGateway } from './gateway.js';
import type { Merchant } from './merchants.js';
import { eventually } from './process.js';

/** The sandbox acquirer's dispute delay the ratio tests use, in ms. */
export const RATIO_TEST_ENV = {
  SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '50',
  SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '50',
};

/**
 * A 100.00 TRY sandbox charge paid with the test card `card`; when the card raises a dispute or an early
 * fraud warning, once the gateway has applied it (a dispute's funds withdrawn). The charge's id.
 */
export async function paidWith(t: TestGateway, merchant: Merchant, card: TestCardName): Promise<string> {
  const charge = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, { amount: 10_000 });
  await payByCard(t.gateway.services, charge, 'Oran Testi', { number: TEST_CARDS[card].number });
  const raises = cardDispute(TEST_CARDS[card].number)?.kind;
  const db = t.gateway.database.db;
  if (raises === 'dispute')
    await eventually(
      async () => {
        const row = await db
          .selectFrom('disputes')
          .select('amount_withdrawn')
          .where('charge_id', '=', charge.id)
          .executeTakeFirst();
        return row !== undefined && row.amount_withdrawn !== '0';
      },
      15_000,
      `the dispute of ${charge.id}`,
    );
  if (raises === 'early_fraud_warning')
    await eventually(
      async () =>
        (await db
          .selectFrom('fraud_warnings')
          .select('id')
          .where('charge_id', '=', charge.id)
          .executeTakeFirst()) !== undefined,
      15_000,
      `the fraud warning of ${charge.id}`,
    );
  return charge.id;
}

/** `times` payments with each card named, at once. */
export async function paidWithEach(
  t: TestGateway,
  merchant: Merchant,
  cards: Partial<Record<TestCardName, number>>,
): Promise<void> {
  const each = Object.entries(cards) as Array<[TestCardName, number]>;
  await Promise.all(
    each.flatMap(([card, times]) => Array.from({ length: times }, () => paidWith(t, merchant, card))),
  );
}
