import { Type, type TObjectOptions, type TProperties, type TSchema } from 'typebox';
import { ListQuerySchema } from './list-query.js';

/**
 * Schema pieces the merchant API's resources share, so that a time, a page, an id in the path and
 * `metadata` read the same on every route (spec sections 2 and 4).
 */

/** A time as the API writes it (`toISOString`). */
export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} ISO 8601 UTC with milliseconds.` });

/** A time that may not be set (yet). */
export const NullableTimestamp = (description: string) =>
  Type.Union([Timestamp(description), Type.Null()], { description: `${description} Null when not set.` });

/** How most pages describe their `nextCursor`. */
export const NEXT_CURSOR = 'Pass back as `cursor` for the next page; null on the last page.';

/**
 * A page of a list: `data`, newest first, and the `nextCursor` to pass back as `cursor` (null on the
 * last page). `cursor` describes `nextCursor`; `options` are the page object's own.
 */
export function PageSchema<T extends TSchema>(item: T, cursor?: string, options?: TObjectOptions) {
  return Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union(
        [Type.String(), Type.Null()],
        cursor === undefined ? undefined : { description: cursor },
      ),
    },
    options,
  );
}

/** The `{id}` path parameter of a route that names one resource. */
export const IdParamsSchema = (description: string) =>
  Type.Object(
    { id: Type.String({ minLength: 1, maxLength: 64, description }) },
    { additionalProperties: false },
  );

/** A merchant's own `metadata`: any JSON object, its keys at most 100 characters. */
export const MetadataSchema = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    // A key's length, stated as JSON Schema does: a Record's key schema is not validated.
    propertyNames: { maxLength: 100 },
    description,
  });

/** A request body or query of these members only: any other member is refused (400). */
export const StrictObject = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

/** The query of a list with filters of its own, besides `limit` and `cursor` (spec section 4). */
export const ListQueryWith = <T extends TProperties>(filters: T) =>
  StrictObject({ ...ListQuerySchema.properties, ...filters });
