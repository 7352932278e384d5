import { Type } from 'typebox';
import { CARD_LIMITS } from './card.js';

export const CheckoutParamsSchema = Type.Object({
  paymentId: Type.String({
    minLength: 1,
    maxLength: 255,
    description: "The acquirer's payment id (`pay_…`).",
  }),
});

export const LangQuerySchema = Type.Object({ lang: Type.Optional(Type.String()) });

/** The acquirer appends `payment=<id>` to the return URL; the path already names the payment. */
export const ReturnQuerySchema = Type.Object({
  lang: Type.Optional(Type.String()),
  payment: Type.Optional(Type.String()),
});

/**
 * The card form (application/x-www-form-urlencoded). Every field is optional here so that a missing
 * one is reported next to its field by the checks of card.ts, in the page's language.
 */
export const CardFormSchema = Type.Object(
  {
    holderName: Type.Optional(Type.String({ maxLength: 255 })),
    cardNumber: Type.Optional(Type.String({ maxLength: CARD_LIMITS.cardNumber * 2 })),
    expiry: Type.Optional(Type.String({ maxLength: 32 })),
    cvc: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);

export const CheckoutStatusSchema = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('expired')],
      { description: 'The charge status as the checkout shows it (`expired` once `expiresAt` has passed).' },
    ),
    providerStatus: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
