-- docs/decisions/0052-charge-key-reuse-and-exact-json-numbers.md: the fingerprint of the request that
-- made a charge with an idempotency key (SHA-256 of its body in canonical JSON, without the customer's ID
-- number, which is compared sealed), so that a retry with the same key finishes or returns the charge
-- only when it is the same request; another body is 409 `idempotency_key_reuse`. Nullable: charges made
-- without a key have none, and so do charges made before this migration or by a process of the previous
-- release during a rolling deploy (ADR 0039); those are compared field by field with the retry instead.
ALTER TABLE charges ADD COLUMN request_fingerprint text;
