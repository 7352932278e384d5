import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import {
  BIN_CSV_COLUMNS,
  BIN_CSV_MAX_BYTES,
  BIN_ERRORS,
  BinImportSchema,
  BinInfoSchema,
  BinListQuery,
  BinLookupParams,
  BinPrefixParams,
  BinRowSchema,
  type BinError,
  type BinService,
} from '../bins/index.js';
import { apiRoute, pagedList, PageOf } from './api-kit.js';
import { actorOf } from './auth.js';

/** What the operator's BIN table routes read and write. */
export type OperatorBins = Pick<BinService, 'list' | 'get' | 'lookup' | 'import'>;

export function binValue<T>(result: Result<T, BinError>): T {
  if (result.ok) return result.value;
  throw toApiError(BIN_ERRORS, result.error);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A file's bytes as text, refused unless they are UTF-8 (a byte-order mark is allowed). */
export function csvText(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw ApiError.validation(
      [{ path: '', in: 'body', code: 'invalid_format', message: 'the file is not UTF-8 text' }],
      'The BIN file must be UTF-8 text.',
    );
  }
}

/** The BIN file's columns, for the descriptions. */
export const CSV_HEADER = BIN_CSV_COLUMNS.join(',');

/** Only a CSV body: the route's own check, after the caller's (who may call comes first). */
async function csvOnly(request: FastifyRequest): Promise<void> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/csv')
    throw new ApiError('unsupported_media_type', 'A BIN file is sent as text/csv (UTF-8).');
}

/** The BIN table for the operator as JSON (docs/risk.md, "The BIN table"): its rows, a lookup, a load. */
export async function operatorBinApi(app: App, deps: { bins: OperatorBins }): Promise<void> {
  const { bins } = deps;
  // Only in this plugin's scope: every other operator route still takes JSON and forms only.
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'buffer', bodyLimit: BIN_CSV_MAX_BYTES },
    (_r, body, done) => {
      try {
        done(null, csvText(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );

  app.get(
    '/operator/v1/bins',
    apiRoute(
      'read',
      PageOf(BinRowSchema),
      {
        description:
          'The rows of the BIN table in prefix order: those whose prefix begins with `prefix`, of a ' +
          '`country` and a `scheme`. Cursor paged: `limit` (1 to 500, default 100) and the `nextCursor` of ' +
          'the previous page, which is bound to the filters it was issued with.',
        querystring: BinListQuery,
      },
      { errors: errorResponses(400, 401, 403, 429) },
    ),
    pagedList(async (filter, page) => binValue(await bins.list(filter, page))),
  );

  app.get(
    '/operator/v1/bins/:prefix',
    apiRoute(
      'read',
      BinRowSchema,
      { description: 'The row of exactly this prefix; 404 without one.', params: BinPrefixParams },
      { errors: errorResponses(400, 401, 403, 404, 429) },
    ),
    async (request) => binValue(await bins.get(request.params.prefix)),
  );

  app.get(
    '/operator/v1/bin-lookups/:bin',
    apiRoute(
      'read',
      BinInfoSchema,
      {
        description:
          'What the gateway knows of a card from its first 6 to 8 digits, as the risk engine reads it: ' +
          'the row of the longest prefix they begin with (8, 7, then 6 digits), else the scheme by ' +
          '`credit-card-type` and the Troy ranges with the rest `unknown`.',
        params: BinLookupParams,
      },
      { errors: errorResponses(400, 401, 403, 429) },
    ),
    async (request) => bins.lookup(request.params.bin),
  );

  app.post(
    '/operator/v1/bins/import',
    {
      ...apiRoute(
        'administer',
        BinImportSchema,
        {
          description:
            `Loads a BIN file: \`text/csv\` in UTF-8, the header \`${CSV_HEADER}\` (any order), one ` +
            'row per prefix of 6 to 8 digits; `issuer` and `programme` may be empty. Every line is ' +
            'checked first: any problem is 400 `validation_failed` with one issue per problem, its ' +
            '`path` `lines.<line>.<column>` (the header is line 1), and nothing is loaded. Otherwise ' +
            'every row is upserted by its prefix in one transaction and the load audited ' +
            `(\`bin_table.imported\`). At most ${BIN_CSV_MAX_BYTES} bytes (413) and 200,000 rows.`,
          body: Type.String({ minLength: 1, description: 'The CSV file.' }),
          consumes: ['text/csv'],
        },
        { errors: errorResponses(400, 401, 403, 413, 415, 429) },
      ),
      bodyLimit: BIN_CSV_MAX_BYTES,
      preValidation: csvOnly,
    },
    async (request) => binValue(await bins.import(request.body, actorOf(request))),
  );
}
