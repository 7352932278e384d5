import { Type, type Static } from 'typebox';
import { IdParamsSchema, ListQueryWith, PageSchema, Timestamp } from '../../http/schemas.js';
import { FILE_PURPOSES, FILE_TYPES, MAX_FILE_BYTES, MAX_FILENAME_LENGTH } from './types.js';

const Purpose = Type.Enum([...FILE_PURPOSES], {
  description: 'What the file is for: `dispute_evidence`, a file a dispute’s evidence can name.',
});
const FileTypeSchema = Type.Enum([...FILE_TYPES], {
  description: 'The type the bytes proved (never the name or the part’s declared type).',
});

/** The form of `POST /v1/files` (multipart/form-data), for the OpenAPI document. */
export const FileUploadFormSchema = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description:
        `The file, in a part with a file name: a PDF, PNG or JPEG of 1 to ${MAX_FILE_BYTES} bytes (5 MiB). ` +
        'Its type is read from its bytes; the name is kept (its last path segment, at most ' +
        `${MAX_FILENAME_LENGTH} characters) only to name the download.`,
    }),
    purpose: Purpose,
  },
  { additionalProperties: false },
);

export const FileIdParamsSchema = IdParamsSchema('The file id (`file_…`).');

export const FileListQuerySchema = ListQueryWith({
  disputeId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only the files a dispute’s evidence names (`dp_…`).',
    }),
  ),
});
export type FileListQuery = Static<typeof FileListQuerySchema>;

export const FileViewSchema = Type.Object(
  {
    id: Type.String({ description: '`file_…`' }),
    object: Type.Literal('file'),
    purpose: Purpose,
    type: FileTypeSchema,
    size: Type.Integer({ minimum: 1, maximum: MAX_FILE_BYTES, description: 'In bytes.' }),
    filename: Type.Union([Type.String(), Type.Null()], {
      description: 'The name it was uploaded with (its last path segment); null when it had none.',
    }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, lower-case hex.' }),
    disputeId: Type.Union([Type.String(), Type.Null()], {
      description: 'The dispute whose evidence names the file; null until one does.',
    }),
    livemode: Type.Boolean(),
    createdAt: Timestamp('When it was uploaded.'),
  },
  {
    additionalProperties: false,
    description:
      'An uploaded file. Its bytes are served only to its organization, in its environment, by ' +
      '`GET /v1/files/{id}/contents` with an API key: there is no public URL.',
  },
);

export const FileListSchema = PageSchema(FileViewSchema, 'Null on the last page.', {
  additionalProperties: false,
});

const Binary = (description: string) => ({ schema: Type.String({ format: 'binary', description }) });

/** The 200 of `GET /v1/files/{id}/contents`: the bytes, with the type they proved. */
export const FileContentsResponseSchema = {
  description: 'The bytes, as a download (`Content-Disposition: attachment`), with the type they proved.',
  content: {
    'application/pdf': Binary('A PDF.'),
    'image/png': Binary('A PNG image.'),
    'image/jpeg': Binary('A JPEG image.'),
  },
};
