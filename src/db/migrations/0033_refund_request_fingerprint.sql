-- docs/decisions/0052-charge-key-reuse-and-exact-json-numbers.md: refunds follow the rule of charges. The
-- fingerprint of the request that made a refund with an idempotency key (SHA-256 of its body in canonical
-- JSON), so that a retry with the same key asks again for the refund, or gets it, only when it is the same
-- request; another body is 409 `idempotency_key_reuse`. Nullable: refunds made without a key have none,
-- and so do refunds made before this migration or by a process of the previous release during a rolling
-- deploy (ADR 0039); those are compared with the retry on the amount and reason they recorded instead.
ALTER TABLE refunds ADD COLUMN request_fingerprint text;
