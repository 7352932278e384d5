/**
 * Issue 37 item 4: evidence files, `POST /v1/files` (multipart, flag `disputes`), `GET /v1/files`,
 * `GET /v1/files/{id}` and `GET /v1/files/{id}/contents` (docs/files.md): the type read from the bytes
 * (never the name or the declared type), the size limit read as a stream, the error envelopes, the
 * authentication matrix, ownership (404) and the service the disputes module calls (describe, attach).
 */
import { createHash } from 'node:crypto';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { expectKeyRequired, expectLiveApart } from './helpers/api-checks.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { request, type ErrorBody, type HttpResult } from './helpers/http.js';
import { assertConforms } from './helpers/openapi-conformance.js';
import { t, useTestGateway } from './helpers/suite.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import {
  createFileService,
  MAX_FILE_BYTES,
  type FileStorage,
  type FileView,
} from '../src/modules/files/index.js';
import type { Environment } from '../src/db/schema.js';

type FileBody = FileView;
type Answer<T = FileBody> = HttpResult<T & ErrorBody>;

// The smallest files of each type whose signatures file-type recognises.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from([0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89]),
]);
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t, { featureFlags: ['disputes'] });
});

const db = () => t.gateway.database.db;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const api = <T = FileBody>(path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init });

/** A form part: a file (bytes, a name and a declared type) or a text field. */
type Part =
  { name: string; bytes: Buffer; filename?: string; type?: string } | { name: string; value: string };

/** The multipart body of `parts`, written as browsers and fetch's FormData write it. */
function multipartOf(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----files-test-${Math.random().toString(36).slice(2)}`;
  const quoted = (text: string) => text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const chunks = parts.flatMap((part) => {
    const head =
      'value' in part
        ? `Content-Disposition: form-data; name="${quoted(part.name)}"`
        : `Content-Disposition: form-data; name="${quoted(part.name)}"; filename="${quoted(part.filename ?? 'upload')}"\r\n` +
          `Content-Type: ${part.type ?? 'application/octet-stream'}`;
    const value = 'value' in part ? Buffer.from(part.value) : part.bytes;
    return [Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), value, Buffer.from('\r\n')];
  });
  return {
    body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const evidence = (bytes: Buffer, filename = 'evidence', type?: string): Part[] => [
  { name: 'purpose', value: 'dispute_evidence' },
  { name: 'file', bytes, filename, ...(type === undefined ? {} : { type }) },
];

async function upload(parts: Part[], init: ApiInit = {}): Promise<Answer> {
  const { body, contentType } = multipartOf(parts);
  return api('/v1/files', {
    ...init,
    method: 'POST',
    rawBody: body,
    headers: { 'content-type': contentType, ...init.headers },
  });
}

async function uploaded(bytes: Buffer, filename: string, init: ApiInit = {}): Promise<FileBody> {
  const res = await upload(evidence(bytes, filename), init);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** `GET /v1/files/{id}/contents` read as bytes (the test client reads text), checked against the document. */
async function download(
  id: string,
  key = merchant.keys.sandbox.secret,
  environment: Environment = 'sandbox',
) {
  const url = `${environment === 'sandbox' ? t.urls.sandboxApi : t.urls.liveApi}/v1/files/${id}/contents`;
  const response = await fetch(url, { headers: { 'x-api-key': key } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get('content-type') ?? '').includes('application/json');
  const text = json ? bytes.toString('utf8') : '';
  const result = {
    status: response.status,
    headers: response.headers,
    text,
    body: json ? JSON.parse(text) : '',
  };
  await assertConforms('GET', url, result);
  return { ...result, bytes, body: result.body as ErrorBody };
}

const countFiles = async (organizationId: string) => {
  const files = await db()
    .selectFrom('files')
    .select(db().fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const contents = await db()
    .selectFrom('file_contents')
    .select(db().fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return { files: Number(files.n), contents: Number(contents.n) };
};

describe('upload and download', () => {
  it.each([
    ['a PDF', PDF, 'statement.pdf', 'application/pdf'],
    ['a PNG, whatever its name says', PNG, 'access-log.bin', 'image/png'],
    ['a JPEG', JPEG, 'delivery photo.jpeg', 'image/jpeg'],
  ])(
    'stores %s with the type its bytes prove and serves it back to its owner',
    async (_, bytes, name, type) => {
      const file = await uploaded(bytes, name);
      expect(file).toMatchObject({
        object: 'file',
        purpose: 'dispute_evidence',
        type,
        size: bytes.length,
        filename: name,
        sha256: sha256(bytes),
        disputeId: null,
        livemode: false,
      });
      expect(file.id).toMatch(/^file_[0-9a-z]{29}$/);
      expect(file).not.toHaveProperty('url');

      const got = await api(`/v1/files/${file.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(file);

      const contents = await download(file.id);
      expect(contents.status).toBe(200);
      expect(contents.bytes.equals(bytes)).toBe(true);
      expect(contents.headers.get('content-type')).toBe(type);
      expect(contents.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
      expect(contents.headers.get('x-content-type-options')).toBe('nosniff');
      expect(contents.headers.get('cache-control')).toBe('private, no-store');
    },
  );

  it('keeps only the last segment of a path as the name, and names the download by it in ASCII and UTF-8', async () => {
    const file = await uploaded(PDF, 'C:\\evidence\\İade politikası.pdf');
    expect(file.filename).toBe('İade politikası.pdf');
    const contents = await download(file.id);
    expect(contents.headers.get('content-disposition')).toBe(
      `attachment; filename="_ade politikas_.pdf"; filename*=UTF-8''${encodeURIComponent('İade politikası.pdf')}`,
    );
  });

  it('lists the files newest first, in cursor pages', async () => {
    const other = await createMerchant(t, { featureFlags: ['disputes'] });
    const key = other.keys.sandbox.secret;
    const first = await uploaded(PDF, 'a.pdf', { key });
    t.clock.advance(1000);
    const second = await uploaded(PNG, 'b.png', { key });
    const page = await api<{ data: FileBody[]; nextCursor: string | null }>('/v1/files?limit=1', { key });
    expect(page.status).toBe(200);
    expect(page.body.data.map((file) => file.id)).toEqual([second.id]);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await api<{ data: FileBody[]; nextCursor: string | null }>(
      `/v1/files?limit=1&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`,
      { key },
    );
    expect(next.body.data.map((file) => file.id)).toEqual([first.id]);
    const cursorOfAnother = await api(`/v1/files?cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`);
    expect(cursorOfAnother.status).toBe(400);
  });

  it('replays an upload with the same idempotency key and bytes, and refuses the key with other bytes', async () => {
    const headers = { 'x-idempotency-key': `files-${Math.random()}` };
    const first = await upload(evidence(PDF, 'same.pdf'), { headers });
    expect(first.status).toBe(201);
    const again = await upload(evidence(PDF, 'same.pdf'), { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await upload(evidence(PNG, 'same.pdf'), { headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
  });
});

describe('bad files', () => {
  it('refuses bytes that are no PDF, PNG or JPEG, whatever the name and declared type say', async () => {
    const before = await countFiles(merchant.organizationId);
    for (const bytes of [Buffer.from('just text, not a PDF'), GIF]) {
      const res = await upload(evidence(bytes, 'contract.pdf', 'application/pdf'));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('file_type_not_allowed');
    }
    expect(await countFiles(merchant.organizationId)).toEqual(before);
  });

  it('refuses an empty file', async () => {
    const res = await upload(evidence(Buffer.alloc(0), 'empty.pdf'));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('file_empty');
  });

  it('takes a file of exactly the limit and refuses one byte more (413), storing nothing', async () => {
    const before = await countFiles(merchant.organizationId);
    const atLimit = Buffer.concat([PDF, Buffer.alloc(MAX_FILE_BYTES - PDF.length, 0x20)]);
    const taken = await upload(evidence(atLimit, 'big.pdf'));
    expect(taken.status, taken.text).toBe(201);
    expect(taken.body.size).toBe(MAX_FILE_BYTES);
    const res = await upload(evidence(Buffer.concat([atLimit, Buffer.from(' ')]), 'bigger.pdf'));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('file_too_large');
    const after = await countFiles(merchant.organizationId);
    expect(after).toEqual({ files: before.files + 1, contents: before.contents + 1 });
  });

  it('cuts a huge upload off at the limit, answers it and closes the connection', async () => {
    const huge = Buffer.concat([PDF, Buffer.alloc(2 * MAX_FILE_BYTES, 0x20)]);
    const res = await upload(evidence(huge, 'huge.pdf'));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('file_too_large');
    // The rest of the body is never read: the connection ends with the answer.
    expect(res.headers.get('connection')).toBe('close');
  });

  it('refuses a form without its file or purpose, with another purpose or another part (400)', async () => {
    const cases: Array<[Part[], Array<{ path: string; code: string }>]> = [
      [[{ name: 'file', bytes: PDF, filename: 'a.pdf' }], [{ path: 'purpose', code: 'required' }]],
      [[{ name: 'purpose', value: 'dispute_evidence' }], [{ path: 'file', code: 'required' }]],
      [
        [
          { name: 'purpose', value: 'identity' },
          { name: 'file', bytes: PDF, filename: 'a.pdf' },
        ],
        [{ path: 'purpose', code: 'invalid_value' }],
      ],
      [[...evidence(PDF, 'a.pdf'), { name: 'note', value: 'x' }], [{ path: 'note', code: 'unknown_field' }]],
      [
        [
          { name: 'purpose', value: 'dispute_evidence' },
          { name: 'file', value: 'not a file part' },
        ],
        [{ path: 'file', code: 'invalid_type' }],
      ],
      [evidence(PDF, `${'a'.repeat(256)}.pdf`), [{ path: 'file', code: 'too_long' }]],
      [
        [...evidence(PDF, 'a.pdf'), { name: 'file', bytes: PNG, filename: 'b.png' }],
        [{ path: '', code: 'invalid_format' }],
      ],
    ];
    for (const [parts, issues] of cases) {
      const res = await upload(parts);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues).toEqual(
        issues.map((issue) => expect.objectContaining({ ...issue, in: 'body' })),
      );
    }
  });

  it('refuses a card number in the file name, a JSON body and a body that is not multipart', async () => {
    const card = await upload(evidence(PDF, '4111 1111 1111 1111.pdf'));
    expect(card.status).toBe(400);
    expect(card.body.error.details?.issues).toEqual([expect.objectContaining({ path: 'filename' })]);
    expect(card.text).not.toContain('4111');

    const json = await api('/v1/files', { body: { purpose: 'dispute_evidence' } });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('unsupported_media_type');

    const broken = await api('/v1/files', {
      method: 'POST',
      rawBody: '--x\r\nContent-Disposition: form-data; name="purpose"\r\n\r\ndispute_evidence',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('validation_failed');
  });
});

describe('who may upload and read', () => {
  let fileId: string;

  it('refuses a missing key, a bad key and a read-only key for uploads', async () => {
    fileId = (await uploaded(PDF, 'owned.pdf')).id;
    await expectKeyRequired(t.urls, api, '/v1/files');
    const { body, contentType } = multipartOf(evidence(PDF));
    const missing = await apiRequest<ErrorBody>(t.urls, '/v1/files', {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('missing_api_key');
    const bad = await upload(evidence(PDF), { key: 'sk_test_notakey' });
    expect(bad.status).toBe(401);

    const readOnly = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    const refused = await upload(evidence(PDF), { key: readOnly.secret });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect((await api(`/v1/files/${fileId}`, { key: readOnly.secret })).status).toBe(200);
    expect((await download(fileId, readOnly.secret)).status).toBe(200);
  });

  it('refuses every route to an organization without the disputes feature (403)', async () => {
    const off = await createMerchant(t, { featureFlags: [] });
    const key = off.keys.sandbox.secret;
    const refused = [
      await upload(evidence(PDF), { key }),
      await api('/v1/files', { key }),
      await api(`/v1/files/${fileId}`, { key }),
    ];
    const contents = await download(fileId, key);
    for (const res of [...refused, contents]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('keeps organizations and environments apart (404)', async () => {
    await expectLiveApart(api, merchant, '/v1/files', `/v1/files/${fileId}`);
    const live = await download(fileId, merchant.keys.live.secret, 'live');
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('not_found');

    const stranger = await createMerchant(t, { featureFlags: ['disputes'] });
    const key = stranger.keys.sandbox.secret;
    const got = await api(`/v1/files/${fileId}`, { key });
    expect(got.status).toBe(404);
    expect(got.body.error.code).toBe('not_found');
    const contents = await download(fileId, key);
    expect(contents.status).toBe(404);
    expect(contents.body.error.code).toBe('not_found');
    expect(contents.text).not.toContain('%PDF');
    expect((await api<{ data: FileBody[] }>('/v1/files', { key })).body.data).toEqual([]);
    expect((await api('/v1/files/file_unknown')).status).toBe(404);
  });
});

describe('the service other modules call', () => {
  const owner = () => ({ organizationId: merchant.organizationId, environment: 'sandbox' as const });

  it('describes files and attaches them to one dispute in the caller’s transaction', async () => {
    const files = t.gateway.services.files;
    const a = await uploaded(PDF, 'a.pdf');
    t.clock.advance(1000);
    const b = await uploaded(JPEG, 'b.jpg');
    const described = await files.describe(db(), owner(), [b.id, 'file_unknown', a.id]);
    expect(described.map((file) => [file.id, file.size])).toEqual([
      [b.id, JPEG.length],
      [a.id, PDF.length],
    ]);

    const attached = await db()
      .transaction()
      .execute((trx) => files.attachToDispute(trx, owner(), [a.id, b.id], 'dp_test_one'));
    expect(attached).toEqual({ ok: true, value: { attached: [a.id, b.id] } });
    expect((await api(`/v1/files/${a.id}`)).body.disputeId).toBe('dp_test_one');
    const ofDispute = await api<{ data: FileBody[] }>('/v1/files?disputeId=dp_test_one');
    expect(ofDispute.body.data.map((file) => file.id)).toEqual([b.id, a.id]);

    const again = await db()
      .transaction()
      .execute((trx) => files.attachToDispute(trx, owner(), [a.id], 'dp_test_one'));
    expect(again.ok).toBe(true);
    const c = await uploaded(PNG, 'c.png');
    const taken = await db()
      .transaction()
      .execute((trx) => files.attachToDispute(trx, owner(), [c.id, a.id], 'dp_test_two'));
    expect(taken).toEqual({ ok: false, error: { code: 'file_in_use', ids: [a.id] } });
    const unknown = await db()
      .transaction()
      .execute((trx) => files.attachToDispute(trx, owner(), [c.id, 'file_unknown'], 'dp_test_two'));
    expect(unknown).toEqual({ ok: false, error: { code: 'file_not_found', ids: ['file_unknown'] } });
    expect((await api(`/v1/files/${c.id}`)).body.disputeId).toBeNull();
  });

  it('uploads from a stream, and writes nothing when the storage fails', async () => {
    const files = t.gateway.services.files;
    async function* chunks() {
      yield PNG.subarray(0, 10);
      yield PNG.subarray(10);
    }
    const streamed = await files.upload(owner(), { purpose: 'dispute_evidence', stream: chunks() });
    expect(streamed).toMatchObject({
      ok: true,
      value: { type: 'image/png', size: PNG.length, filename: null },
    });

    const failing: FileStorage = {
      put: async () => {
        throw new Error('storage down');
      },
      get: async () => undefined,
      delete: async () => undefined,
    };
    const broken = createFileService({
      db: db(),
      clock: t.clock,
      cursors: t.gateway.services.cursors,
      storage: failing,
    });
    const before = await countFiles(merchant.organizationId);
    await expect(broken.upload(owner(), { purpose: 'dispute_evidence', bytes: PDF })).rejects.toThrow(
      'storage down',
    );
    expect(await countFiles(merchant.organizationId)).toEqual(before);
  });
});

describe('the OpenAPI document', () => {
  interface Operation {
    operationId?: string;
    tags?: string[];
    requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
    responses: Record<string, { content?: Record<string, unknown> }>;
  }

  it('documents the four operations, the multipart form and the binary download, lint-clean', async () => {
    const res = await request<{ paths: Record<string, Record<string, Operation>> }>(
      `${t.urls.sandboxApi}/v1/openapi.json`,
    );
    const { paths } = res.body;
    expect(paths['/v1/files']?.post?.operationId).toBe('createFile');
    expect(paths['/v1/files']?.get?.operationId).toBe('listFiles');
    expect(paths['/v1/files/{id}']?.get?.operationId).toBe('getFile');
    const download = paths['/v1/files/{id}/contents']?.get;
    expect(download?.operationId).toBe('getFileContents');
    expect(Object.keys(download?.responses['200']?.content ?? {})).toEqual([
      'application/pdf',
      'image/png',
      'image/jpeg',
    ]);
    const create = paths['/v1/files']?.post;
    expect(Object.keys(create?.requestBody?.content ?? {})).toEqual(['multipart/form-data']);
    const form = create?.requestBody?.content['multipart/form-data']?.schema;
    expect(Object.keys(form?.properties ?? {})).toEqual(['file', 'purpose']);
    expect(Object.keys(create?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '413', '415']),
    );

    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: res.text, absoluteRef: 'openapi.json', config });
    const ours = problems
      .filter((p) => p.location.some((at) => (at.pointer ?? '').startsWith('#/paths/~1v1~1files')))
      .map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(ours).toEqual([]);
  });
});
