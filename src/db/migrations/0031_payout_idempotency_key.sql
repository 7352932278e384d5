-- A payout carries the idempotency key of the request that made it (docs/decisions/0051-payout-idempotency.md):
-- a retry with the same key finds the payout instead of making a second one, even when the idempotency
-- store's claim lapsed (a request that outlived it) or the process died between the commit and the stored
-- outcome. `request_fingerprint` (SHA-256 of the body in canonical JSON) tells a retry of the same request
-- from another request under the same key. Nullable: automatic payouts and payouts made without a key
-- have neither, and the previous release keeps inserting without them (ADR 0039).
ALTER TABLE payouts
  ADD COLUMN idempotency_key text,
  ADD COLUMN request_fingerprint text;

-- One payout per key, organization and environment. A key forgotten after the idempotency window (24
-- hours) is let go by its old payout (set to null) in the transaction that gives it to a new one.
CREATE UNIQUE INDEX payouts_idempotency_key ON payouts (organization_id, environment, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
