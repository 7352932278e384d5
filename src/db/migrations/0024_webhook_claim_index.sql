-- Issue 16 item 5 (docs/decisions/0036-webhook-throughput.md): the webhook worker's claim reads, per
-- endpoint with pending deliveries, its earliest due ones, and finds those endpoints by a skip scan; both
-- through this index, so a claim costs the same with a thousand or a million deliveries due.
CREATE INDEX webhook_deliveries_endpoint_due_idx
  ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
