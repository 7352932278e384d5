import { Type, type Static } from 'typebox';

const MinorUnits = (description: string) =>
  Type.String({
    pattern: '^(0|-?[1-9][0-9]*)$',
    description:
      `${description} Decimal string of minor units (kuruş): "10950" is 109.50 TRY. Negative only when ` +
      'refunds exceed what is left to settle.',
    examples: ['10950'],
  });

export const BalanceSchema = Type.Object(
  {
    currency: Type.Enum(['TRY'], { description: 'Only `TRY`.' }),
    pending: MinorUnits(
      'Credited for succeeded charges (net of fees, less refunds) and awaiting the next daily settlement batch.',
    ),
    available: MinorUnits(
      'Batched but not paid out: no default wallet, below the payout minimum, or payouts made manually.',
    ),
    inTransit: MinorUnits('In a payout that has not completed yet.'),
    reserve: MinorUnits(
      'Held back by the rolling reserve an operator set (a share of each batch, for a number of days); a ' +
        'later batch releases it to `available` automatically.',
    ),
    debt: Type.String({
      pattern: '^(0|[1-9][0-9]*)$',
      description:
        'What you owe, as a decimal string of minor units: how far `pending` is below zero because refunds ' +
        '(whose fees are not returned) exceeded what was left to settle; `"0"` otherwise. The next ' +
        'settlement recovers it from new credits before anything is paid out.',
      examples: ['0'],
    }),
  },
  { description: 'The balance in one currency.' },
);

export const BalanceViewSchema = Type.Object(
  {
    livemode: Type.Boolean({ description: 'True on the live API, false on the sandbox.' }),
    balances: Type.Array(BalanceSchema, {
      description: 'One row per currency; the `TRY` row is always present, with zeros before any activity.',
    }),
  },
  {
    description:
      'Balances of the calling organization in the environment of the base URL, derived from its ledger ' +
      'postings (product decision 23).',
    examples: [
      {
        livemode: false,
        balances: [
          { currency: 'TRY', pending: '10950', available: '0', inTransit: '0', reserve: '0', debt: '0' },
        ],
      },
    ],
  },
);
export type BalanceView = Static<typeof BalanceViewSchema>;
