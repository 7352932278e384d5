import { ApiError } from '../../http/errors.js';

/** An opaque list position: the (createdAt, id) of the last item of the previous page. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [iso, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  if (!iso || !id || rest.length > 0 || Number.isNaN(createdAt.getTime()) || !/^[a-z]+_[0-9a-z]+$/.test(id)) {
    throw ApiError.validation([
      { path: 'cursor', in: 'query', code: 'invalid_value', message: 'is not a cursor this API issued' },
    ]);
  }
  return { createdAt, id };
}
