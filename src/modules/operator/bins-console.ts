import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, toApiError, type ValidationIssue } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Page } from '../../shared/cursor-page.js';
import { BIN_CSV_MAX_BYTES, BIN_ERRORS, type BinImportView, type BinRowView } from '../bins/index.js';
import { actorOf } from './auth.js';
import { CSV_HEADER, csvText, type OperatorBins } from './bins-api.js';
import { consoleRoute, staffMay, type ConsoleKit } from './console-kit.js';

/** Rows on one page of the console's list. */
const PAGE_SIZE = 100;
/** The form's own parts beside the file: its CSRF token and the multipart framing. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const Count = Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$' }));
const BinsQuery = Type.Object(
  {
    prefix: Type.Optional(Type.String({ maxLength: 40 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    notice: Type.Optional(Type.Literal('imported')),
    inserted: Count,
    updated: Count,
    unchanged: Count,
  },
  { additionalProperties: false },
);

/** The upload form as the multipart parser leaves it: the CSRF token and the file's text. */
interface UploadForm {
  _csrf: string;
  file?: string;
  filename?: string;
}

/**
 * Reads the console's multipart form whole (within the route's body limit) before the operator's guard
 * runs, so that the guard finds the form's `_csrf` as it does in every urlencoded form.
 */
async function readUploadForm(request: FastifyRequest, body: Buffer): Promise<UploadForm> {
  let form: FormData;
  try {
    const headers = { 'content-type': request.headers['content-type'] ?? '' };
    form = await new Response(new Uint8Array(body), { headers }).formData();
  } catch {
    throw ApiError.validation([
      { path: '', in: 'body', code: 'invalid_format', message: 'is not a valid multipart/form-data form' },
    ]);
  }
  const csrf = form.get('_csrf');
  const file = form.get('file');
  const upload: UploadForm = { _csrf: typeof csrf === 'string' ? csrf : '' };
  // A file input left empty posts a part with no name and no bytes.
  if (file instanceof File && !(file.name === '' && file.size === 0)) {
    upload.file = csvText(new Uint8Array(await file.arrayBuffer()));
    upload.filename = file.name;
  }
  return upload;
}

/** `/bins` with a prefix search and a page's cursor. */
function binsUrl(prefix: string | undefined, cursor?: string): string {
  const params = new URLSearchParams();
  if (prefix) params.set('prefix', prefix);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query === '' ? '/bins' : `/bins?${query}`;
}

type BinConsole = { kit: ConsoleKit; bins: OperatorBins };

const PREFIX_REFUSAL = ApiError.validation(
  [{ path: 'prefix', in: 'query', code: 'invalid_format', message: 'is not 1 to 8 digits' }],
  'Search by the first 1 to 8 digits of a prefix.',
);

/** The page: a page of rows (of the prefix searched), the upload form, a notice or the load's problems. */
async function showBins(
  { kit, bins }: BinConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  view: {
    prefix?: string | undefined;
    cursor?: string | undefined;
    notice?: string | undefined;
    refusal?: ApiError | undefined;
  },
) {
  const typed = view.prefix?.trim() ?? '';
  const searched = /^[0-9]{1,8}$/.test(typed) ? typed : undefined;
  const badPrefix = typed !== '' && searched === undefined;
  let refusal = view.refusal ?? (badPrefix ? PREFIX_REFUSAL : undefined);
  let page: Page<BinRowView> = { data: [], nextCursor: null };
  if (!badPrefix) {
    const listed = await bins.list({ prefix: searched }, { limit: PAGE_SIZE, cursor: view.cursor });
    if (listed.ok) page = listed.value;
    else refusal ??= toApiError(BIN_ERRORS, listed.error);
  }
  if (refusal) reply.code(refusal.statusCode);
  const issues = (refusal?.details?.issues as ValidationIssue[] | undefined) ?? [];
  return kit.page(request, reply, 'operator/bins', {
    title: 'BIN table',
    prefix: typed,
    rows: page.data,
    nextUrl: page.nextCursor === null ? undefined : binsUrl(searched, page.nextCursor),
    canLoad: staffMay(request, 'administer'),
    header: CSV_HEADER,
    maxBytes: BIN_CSV_MAX_BYTES,
    notice: view.notice,
    error: refusal?.message,
    problems: issues.filter((issue) => issue.path.startsWith('lines.')).map((issue) => issue.message),
  });
}

const loadedNotice = (query: { inserted?: string; updated?: string; unchanged?: string }) =>
  `BIN file loaded: ${query.inserted ?? 0} new, ${query.updated ?? 0} changed, ` +
  `${query.unchanged ?? 0} unchanged.`;

const loadedUrl = (loaded: BinImportView) =>
  `/bins?notice=imported&inserted=${loaded.inserted}&updated=${loaded.updated}&unchanged=${loaded.unchanged}`;

/**
 * The BIN table as a console page at `/bins` (docs/risk.md, "The BIN table"): its rows in prefix order
 * with a prefix search, and the form that loads a CSV file (administrators), whose problems are shown
 * line by line on the page, nothing loaded.
 */
export async function operatorBinConsole(app: App, deps: BinConsole): Promise<void> {
  // Only in this plugin's scope: the upload form is multipart; every other console form stays urlencoded.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: BIN_CSV_MAX_BYTES + FORM_OVERHEAD_BYTES },
    (request: FastifyRequest, body: string | Buffer) => readUploadForm(request, body as Buffer),
  );

  app.get('/bins', consoleRoute('read', { querystring: BinsQuery }), async (request, reply) => {
    const { query } = request;
    return showBins(deps, request, reply, {
      prefix: query.prefix,
      cursor: query.cursor || undefined,
      notice: query.notice === 'imported' ? loadedNotice(query) : undefined,
    });
  });

  app.post(
    '/bins/import',
    { ...consoleRoute('administer', {}), bodyLimit: BIN_CSV_MAX_BYTES + FORM_OVERHEAD_BYTES },
    async (request, reply) => {
      const form = request.body as UploadForm | undefined;
      if (typeof form?.file !== 'string') {
        const missing = ApiError.validation(
          [{ path: 'file', in: 'body', code: 'required', message: 'choose a CSV file to load' }],
          'No file was chosen.',
        );
        return showBins(deps, request, reply, { refusal: missing });
      }
      const loaded = await deps.bins.import(form.file, actorOf(request));
      if (loaded.ok) return reply.redirect(loadedUrl(loaded.value), 303);
      return showBins(deps, request, reply, { refusal: toApiError(BIN_ERRORS, loaded.error) });
    },
  );
}
