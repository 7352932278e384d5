import { Type, type Static } from 'typebox';
import { PLAIN_TEXT } from '../../http/input.js';
import { ListQuerySchema } from '../../http/list-query.js';
import { IdParamsSchema, MetadataSchema, PageSchema, Timestamp } from '../../http/schemas.js';

/** The limits of a customer's members: the same as a charge's inline customer block. */
export const CUSTOMER_LIMITS = {
  name: 200,
  email: 254,
  phone: 32,
  reference: 120,
  idNumber: 64,
} as const;

const PHONE = '^\\+?[0-9][0-9 ().-]*[0-9]$';

/** The members of a customer a merchant sets; `nullable`: an update may clear them with `null`. */
function members(nullable: boolean) {
  const field = <T extends ReturnType<typeof Type.String>>(schema: T) =>
    Type.Optional(nullable ? Type.Union([schema, Type.Null()]) : schema);
  return {
    name: field(Type.String({ minLength: 1, maxLength: CUSTOMER_LIMITS.name, pattern: PLAIN_TEXT })),
    email: field(Type.String({ format: 'email', maxLength: CUSTOMER_LIMITS.email })),
    phone: field(
      Type.String({
        minLength: 4,
        maxLength: CUSTOMER_LIMITS.phone,
        pattern: PHONE,
        description: 'Digits, optionally with a leading `+`, spaces, dots, dashes and parentheses.',
      }),
    ),
    reference: field(
      Type.String({
        minLength: 1,
        maxLength: CUSTOMER_LIMITS.reference,
        pattern: PLAIN_TEXT,
        description: 'Your identifier of the customer.',
      }),
    ),
    idNumber: field(
      Type.String({
        minLength: 1,
        maxLength: CUSTOMER_LIMITS.idNumber,
        pattern: PLAIN_TEXT,
        description:
          'National ID (T.C. kimlik no) or passport number. Stored encrypted (AES-256-GCM); never returned by ' +
          'any endpoint (`hasIdNumber` tells whether one is on file) and never logged.',
      }),
    ),
    metadata: Type.Optional(
      MetadataSchema(
        'Your own data: a JSON object of at most 8 KB serialized (UTF-8 bytes of its compact JSON). An ' +
          'update replaces it whole.',
      ),
    ),
  };
}

export const CustomerCreateSchema = Type.Object(members(false), { additionalProperties: false });
export type CustomerCreate = Static<typeof CustomerCreateSchema>;

export const CustomerUpdateSchema = Type.Object(members(true), {
  additionalProperties: false,
  description: 'Only the members sent change; `null` clears one.',
});
export type CustomerUpdate = Static<typeof CustomerUpdateSchema>;

export const CustomerIdParamsSchema = IdParamsSchema('The customer id (`cus_…`).');

export const CustomerListQuerySchema = Type.Object(
  {
    ...ListQuerySchema.properties,
    email: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CUSTOMER_LIMITS.email,
        description: 'Only the customers with this e-mail address (case-insensitive, exact).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerListQuery = Static<typeof CustomerListQuerySchema>;

const Text = Type.Union([Type.String(), Type.Null()]);

export const CustomerViewSchema = Type.Object(
  {
    id: Type.String({ description: '`cus_…`' }),
    object: Type.Literal('customer'),
    name: Text,
    email: Text,
    phone: Text,
    reference: Text,
    hasIdNumber: Type.Boolean({ description: 'Whether an ID number is on file (it is never returned).' }),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    livemode: Type.Boolean(),
    createdAt: Timestamp('When it was created.'),
    updatedAt: Timestamp('When it last changed.'),
  },
  { additionalProperties: false },
);
export type CustomerView = Static<typeof CustomerViewSchema>;

export const CustomerListSchema = PageSchema(CustomerViewSchema, 'Null on the last page.', {
  additionalProperties: false,
});

export const CustomerDeletedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('customer'),
    deleted: Type.Literal(true),
  },
  { additionalProperties: false },
);
