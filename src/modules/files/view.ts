import type { FileRow } from '../../db/schema.js';
import type { FileView } from './types.js';

export function fileView(row: FileRow): FileView {
  return {
    id: row.id,
    object: 'file',
    purpose: row.purpose,
    type: row.type,
    size: row.size,
    filename: row.filename,
    sha256: row.sha256,
    disputeId: row.dispute_id,
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
  };
}
