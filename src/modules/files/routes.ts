import multipart from '@fastify/multipart';
import type { FastifySchemaCompiler } from 'fastify';
import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { createValidatorCompiler } from '../../http/validation.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { FILE_ERRORS } from './errors.js';
import {
  FileContentsResponseSchema,
  FileIdParamsSchema,
  FileListQuerySchema,
  FileListSchema,
  FileUploadFormSchema,
  FileViewSchema,
} from './schemas.js';
import type { FileService } from './service.js';
import { MAX_FILE_BYTES, type FileView } from './types.js';
import { readUploadForm } from './upload-form.js';

const unwrap = unwrapWith(FILE_ERRORS);

const TAGS = ['Files'];
const FLAG = 'Needs the `disputes` feature of the organization (403 `forbidden` without it).';
const OWNERSHIP =
  'Files belong to the organization and environment of the key; another organization’s or ' +
  'environment’s file is 404 `not_found`.';

/**
 * The form is read and checked by `readUploadForm` (a multipart body is a stream, not JSON for Ajv);
 * the route's body schema documents it. Every other part is validated as on every route.
 */
function formValidator(): FastifySchemaCompiler<unknown> {
  const validators = createValidatorCompiler();
  return (route) => (route.httpPart === 'body' ? () => true : validators(route));
}

const EXTENSIONS: Record<FileView['type'], string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
};

/** `attachment`, with the file's name as ASCII and as UTF-8 (RFC 6266); its id when it had none. */
export function attachmentOf(file: FileView): string {
  const name = file.filename ?? `${file.id}.${EXTENSIONS[file.type]}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const utf8 = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

/** `/v1/files` (docs/files.md, flag `disputes`): evidence files, checked by their bytes. */
export async function fileRoutes(
  app: App,
  options: { service: FileService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const { service } = options;
  // Only in this plugin's scope: every other route still takes JSON only.
  await app.register(multipart, { throwFileSizeLimit: false });
  app.decorateRequest('fileUpload', null);
  const kit = routeKit({
    tags: TAGS,
    feature: 'disputes',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  app.post(
    '/v1/files',
    {
      ...kit.idempotent(
        {
          operationId: 'createFile',
          summary: 'Upload a file',
          description:
            'A `multipart/form-data` form with a `file` part and a `purpose` field (`dispute_evidence`). ' +
            'The type is read from the bytes, never the name or the part’s declared type: PDF, PNG and ' +
            'JPEG only (400 `file_type_not_allowed`); an empty file is 400 `file_empty`; past ' +
            `${MAX_FILE_BYTES} bytes (5 MiB) the upload is cut off and answered 413 \`file_too_large\`. ` +
            'A dispute’s evidence then names the file by its id (at most 20 MiB of files per dispute). ' +
            'Honours `X-Idempotency-Key`: the same purpose, name and bytes replay the first answer, ' +
            `other bytes are 409 \`idempotency_key_reuse\`. Needs scope \`write\`. ${FLAG}`,
        },
        {
          consumes: ['multipart/form-data'],
          body: FileUploadFormSchema,
          response: { 201: FileViewSchema, ...failures('create') },
        },
        { before: readUploadForm },
      ),
      validatorCompiler: formValidator(),
    },
    async (request, reply) => {
      const form = request.fileUpload;
      if (form === null) throw new Error('POST /v1/files reached its handler without its form');
      return reply.code(201).send(unwrap(await service.upload(ownerOf(request), form)));
    },
  );

  kit.list(app, '/v1/files', FileListQuerySchema, FileListSchema, {
    operationId: 'listFiles',
    summary: 'List files',
    description:
      'Files of this environment, newest first, `limit` (1 to 100, default 20) per page, optionally those ' +
      'a dispute’s evidence names (`disputeId`); pass `nextCursor` back as `cursor` with the same filter. ' +
      `Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/files/:id', FileIdParamsSchema, FileViewSchema, {
    operationId: 'getFile',
    summary: 'Retrieve a file',
    description: `What the file is (no URL: its bytes are read with \`/contents\`). Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.get(ownerOf(request), id)),
  });

  app.get(
    '/v1/files/:id/contents',
    kit.route(
      {
        operationId: 'getFileContents',
        summary: 'Download a file',
        description:
          'The bytes, with the type they proved as `Content-Type`, as an attachment (`Content-Disposition`), ' +
          `\`X-Content-Type-Options: nosniff\` and \`Cache-Control: private, no-store\`. Needs scope \`read\`. ` +
          `${OWNERSHIP} ${FLAG}`,
      },
      { params: FileIdParamsSchema, response: { 200: FileContentsResponseSchema, ...failures('retrieve') } },
    ),
    async (request, reply) => {
      const { file, bytes } = unwrap(await service.contents(ownerOf(request), request.params.id));
      return (
        reply
          .type(file.type)
          .header('content-disposition', attachmentOf(file))
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'private, no-store')
          // The documented body is the file's bytes (a binary string); they are sent as the Buffer they are.
          .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as string)
      );
    },
  );
}
