import { Type, type Static, type TSchema } from 'typebox';
import type { App } from '../../http/server.js';
import type { ErrorEnvelopeSchema } from '../../http/errors.js';
import type { OperatorAuth } from '../../http/route-config.js';
import { API_ERRORS } from './schemas.js';

/**
 * The route kit of the operator API, as `console-kit.ts` is the console's: every JSON route of an area
 * says who may call it (`config.operator`, the role guard of `auth.ts`), what it takes and what it
 * answers, in one call.
 */

/** What an operator API route takes, as its OpenAPI operation documents it. */
export interface RouteInput {
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
}

/** The failures of a route, keyed by status (`errorResponses`). */
type Failures = Record<number, typeof ErrorEnvelopeSchema>;
/** How the type provider reads a route's answers: its own, and the error envelope under any other status. */
type Answers<C extends number, R extends TSchema> = { [K in C]: R } & {
  [K in Exclude<400 | 401 | 403 | 404 | 409 | 415 | 429 | 500 | 502 | 503, C>]: typeof ErrorEnvelopeSchema;
};

/**
 * The route options of an operator API route: who may call it, what it takes (`input`), its answer
 * (200, or `status`: 201 for what it creates) and the failures it can answer (`API_ERRORS` unless said).
 */
export function apiRoute<const I extends RouteInput, R extends TSchema, C extends number = 200>(
  permission: OperatorAuth,
  answer: R,
  input: I = {} as I,
  options: { status?: C; errors?: Failures } = {},
) {
  const status = options.status ?? 200;
  const response = { [status]: answer, ...(options.errors ?? API_ERRORS) } as Answers<C, R>;
  return { schema: { ...input, response }, config: { operator: permission } };
}

/** A cursor-paged list's answer: the page's items and the cursor of the next page (null on the last). */
export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });

/** The paging part of a cursor-paged list's query; the rest of the query filters it. */
interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/**
 * The handler of a cursor-paged list route: the query's `limit` and `cursor` page the list, the rest of
 * the query is its filter.
 */
export function pagedList<Q extends PageQuery, A>(
  list: (filter: Omit<Q, keyof PageQuery>, page: PageQuery) => Promise<A>,
): (request: { query: Q }) => Promise<A> {
  return (request) => {
    const { limit, cursor, ...filter } = request.query;
    return list(filter, { limit, cursor });
  };
}

/** A whole list's answer: its items, in one page. */
export const ListOf = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item) });

/** A whole list's route, readers' (`read`): GET `path`, answering every item `list` reads, in one page. */
export function wholeListApi<T extends TSchema>(
  app: App,
  path: string,
  item: T,
  description: string,
  list: () => Promise<Static<ReturnType<typeof ListOf<T>>>['data']>,
): void {
  app.get(path, apiRoute('read', ListOf(item), { description }), async () => ({ data: await list() }));
}
