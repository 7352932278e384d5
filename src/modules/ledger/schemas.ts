import { Type, type Static } from 'typebox';

const MinorUnits = (description: string) =>
  Type.String({
    pattern: '^(0|[1-9][0-9]*)$',
    description: `${description} Decimal string of minor units (kuruş): "10950" is 109.50 TRY; never negative.`,
    examples: ['10950'],
  });

export const BalanceSchema = Type.Object(
  {
    currency: Type.Enum(['TRY'], { description: 'Only `TRY`.' }),
    pending: MinorUnits(
      'Credited and awaiting the next daily settlement batch: succeeded charges net of their fees, less ' +
        'refunds, since the last batch. When refunds exceed those credits it is `0` and the difference is ' +
        '`debt`; the two are never both above zero.',
    ),
    available: MinorUnits(
      'Batched and not paid out: no default wallet, below the payout minimum, or payouts made manually. ' +
        'A manual payout (`POST /v1/payouts`, or the dashboard) takes at most this.',
    ),
    inTransit: MinorUnits('In a payout that has not completed yet.'),
    reserve: MinorUnits(
      'Held back by the rolling reserve an operator set (a share of each batch, for a number of days); a ' +
        'later batch releases it to `available` automatically.',
    ),
    debt: MinorUnits(
      'What you owe: refunds (whose card fees are not returned) that exceeded what was left to settle. It ' +
        'is not also subtracted from `pending` (which is then `0`). The next settlement recovers it from ' +
        'new credits before anything is batched; `available` is not touched by it unless an operator ' +
        'recovers it from there. What you hold overall is `pending + available + inTransit + reserve - ' +
        'debt`.',
    ),
  },
  { description: 'The balance in one currency. Each figure counts each kuruş once.' },
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
