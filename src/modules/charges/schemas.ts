import { Type, type Static } from 'typebox';
import { METADATA_MAX_BYTES, PLAIN_TEXT } from '../../http/input.js';
import {
  IdParamsSchema,
  ListQueryWith,
  MetadataSchema,
  NEXT_CURSOR,
  PageSchema,
  StrictObject,
  Timestamp,
} from '../../http/schemas.js';

export const PAYMENT_METHODS = ['bank_transfer', 'credit_card_tr', 'credit_card_international'] as const;
export const CHARGE_STATUSES = ['pending', 'succeeded', 'failed', 'expired'] as const;
export const CHARGE_LIMITS = {
  merchantReference: 120,
  metadataBytes: METADATA_MAX_BYTES,
  customerName: 200,
  customerEmail: 254,
  customerPhone: 32,
  customerReference: 120,
  customerIdNumber: 64,
  returnUrl: 2048,
} as const;

export const ChargeCreateSchema = StrictObject({
  amount: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      'Minor units (kuruş): 12550 is 125.50 TRY. A JSON integer from 1 to 9007199254740991; a string, a ' +
      'fraction, zero or a negative number is refused.',
    examples: [12550],
  }),
  currency: Type.Enum(['TRY'], { description: 'Only `TRY`.' }),
  paymentMethod: Type.Enum([...PAYMENT_METHODS], {
    description:
      'Which page the hosted checkout shows: a card form (Turkish or international cards) or bank transfer.',
  }),
  merchantReference: Type.String({
    minLength: 1,
    maxLength: CHARGE_LIMITS.merchantReference,
    pattern: PLAIN_TEXT,
    description:
      'Your order reference, at most 120 characters, unique per organization and environment (409 ' +
      '`duplicate_merchant_reference`). A charge the acquirer refused does not hold its reference.',
  }),
  customer: Type.Optional(
    Type.Object(
      {
        name: Type.Optional(Type.String({ minLength: 1, maxLength: CHARGE_LIMITS.customerName })),
        email: Type.Optional(Type.String({ format: 'email', maxLength: CHARGE_LIMITS.customerEmail })),
        phone: Type.Optional(
          Type.String({
            minLength: 4,
            maxLength: CHARGE_LIMITS.customerPhone,
            pattern: '^\\+?[0-9][0-9 ().-]*[0-9]$',
            description: 'Digits, optionally with a leading `+`, spaces, dots, dashes and parentheses.',
          }),
        ),
        reference: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: CHARGE_LIMITS.customerReference,
            pattern: PLAIN_TEXT,
            description: 'Your identifier of the customer.',
          }),
        ),
        idNumber: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: CHARGE_LIMITS.customerIdNumber,
            pattern: PLAIN_TEXT,
            description:
              'National ID (T.C. kimlik no) or passport number. Stored encrypted (AES-256-GCM); never returned ' +
              'by any endpoint and never logged.',
          }),
        ),
      },
      {
        additionalProperties: false,
        description: 'Used for receipts and reconciliation.',
      },
    ),
  ),
  customerId: Type.Optional(
    Type.String({
      minLength: 5,
      maxLength: 64,
      pattern: '^cus_[0-9A-Za-z_]+$',
      description:
        'A customer of this environment (`cus_…`, flag `customers`: 403 `forbidden` without it) whose ' +
        'details the charge copies, instead of an inline `customer` block (not both: 400 ' +
        '`validation_failed`). An unknown or deleted customer is 400 `validation_failed`.',
    }),
  ),
  metadata: Type.Optional(
    MetadataSchema(
      'Your own data, echoed in webhooks: a JSON object of at most 8 KB serialized (UTF-8 bytes of its ' +
        'compact JSON).',
    ),
  ),
  returnUrl: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: CHARGE_LIMITS.returnUrl,
      description:
        'Where the hosted checkout sends the customer back after paying. `https` in live mode; the ' +
        'sandbox also accepts `http`.',
    }),
  ),
});
export type ChargeCreate = Static<typeof ChargeCreateSchema>;

export const CustomerViewSchema = Type.Object(
  {
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    reference: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'The customer as given at creation; the ID number is never returned.' },
);

export const ChargeViewSchema = Type.Object(
  {
    id: Type.String({ description: 'Prefix `ch_`.', pattern: '^ch_' }),
    amount: Type.String({
      pattern: '^[1-9][0-9]*$',
      description: 'Decimal string of the minor-unit amount (the request sends an integer).',
      examples: ['12550'],
    }),
    amountRefunded: Type.String({
      pattern: '^(0|[1-9][0-9]*)$',
      description: 'Decimal string of the minor units refunded so far (`0` until a refund succeeds).',
    }),
    currency: Type.Enum(['TRY']),
    paymentMethod: Type.Enum([...PAYMENT_METHODS]),
    merchantReference: Type.String(),
    status: Type.Enum([...CHARGE_STATUSES], {
      description:
        '`pending` until the customer pays (`succeeded`), the payment fails (`failed`) or the checkout ' +
        'expires (`expired`). A refund does not change it: `succeeded` says the customer paid, which stays ' +
        'true, and a final status never moves (the events already sent said so). What was given back is ' +
        '`amountRefunded` (equal to `amount` when refunded in full) and each refund is a `charge.refunded` ' +
        "event; `providerStatus` is the acquirer's `partially_refunded` or `refunded`.",
    }),
    paymentPageUrl: Type.String({
      description: 'The hosted checkout, `{checkout_url}/c/<paymentId>`: redirect the customer here.',
    }),
    providerPaymentId: Type.String({
      description: 'The payment at the acquirer, prefix `pay_`.',
      pattern: '^pay_',
    }),
    providerStatus: Type.String({
      description:
        'The payment state at the acquirer: `awaiting_payment`, `requires_action`, `succeeded`, `failed`, ' +
        '`canceled`, `partially_refunded` or `refunded`.',
    }),
    customer: CustomerViewSchema,
    card: Type.Union(
      [Type.Object({ brand: Type.String(), last4: Type.String({ pattern: '^[0-9]{4}$' }) }), Type.Null()],
      {
        description:
          'The card that paid or last tried: brand and last four digits only; null before a card attempt.',
      },
    ),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
      description: "The acquirer's reason for the last declined attempt or the failure; null otherwise.",
    }),
    metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'As given at creation, or null.',
    }),
    returnUrl: Type.Union([Type.String(), Type.Null()]),
    livemode: Type.Boolean({ description: 'True for live-mode charges.' }),
    expiresAt: Timestamp('When an unpaid checkout expires.'),
    createdAt: Timestamp('Creation time.'),
    updatedAt: Timestamp('Last change.'),
  },
  { description: 'ChargeView (spec section 2.3).' },
);
export type ChargeView = Static<typeof ChargeViewSchema>;

export const ChargeListSchema = PageSchema(ChargeViewSchema, NEXT_CURSOR, {
  description: 'A page of charges, newest first (spec section 2.4).',
});

export const ChargeListQuerySchema = ListQueryWith({
  customerId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only the charges made for this customer (`cus_…`).',
    }),
  ),
});
export type ChargeListQuery = Static<typeof ChargeListQuerySchema>;

export const ChargeIdParamsSchema = IdParamsSchema('Charge identifier, prefix `ch_`.');
