-- Issue 15 item 4 (exports, docs/exports.md): an organization's refunds of one environment in a date range,
-- read oldest first in keyset pages. The charges and payouts lists already have this index.
CREATE INDEX refunds_owner_idx ON refunds (organization_id, environment, created_at DESC, id DESC);
