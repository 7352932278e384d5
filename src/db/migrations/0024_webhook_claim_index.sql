-- Issue 16 item 5 (docs/decisions/0036-webhook-throughput.md): the webhook worker's claim finds the
-- endpoints with pending deliveries by a skip scan of this index, and reads each one's earliest due
-- deliveries from it, so a claim costs the same with a thousand or a million deliveries due.
CREATE INDEX webhook_deliveries_endpoint_due_idx
  ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
-- The index of the claim it replaces (due time across every endpoint): nothing reads by it any more, and a
-- planner offered it may read every due delivery to find one endpoint's.
DROP INDEX webhook_deliveries_due_idx;
