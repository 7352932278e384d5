import { Type, type Static } from 'typebox';

/** The query of every list (spec section 4): `limit` 1 to 100, default 20, and an opaque `cursor`. */
export const ListQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Opaque; pass back the `nextCursor` of the previous page.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;
