-- A sandbox settle-now batch is dated the day of the call that made it, and the helper may be called
-- several times a day (docs/decisions/0067-settle-now-batches-and-resumed-releases.md): the batch of a
-- business date is unique per owner for the daily schedule's batches only. A settle-now batch is one per
-- call, serialised with every other release of its owner by the owner's settlement lock; its items keep
-- their unique source, so nothing is released twice. The same name as before: the chunk's ON CONFLICT
-- names this index's columns and predicate.
ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_once;
CREATE UNIQUE INDEX settlement_batches_once
  ON settlement_batches (organization_id, environment, business_date) WHERE origin = 'schedule';

-- A webhook endpoint's deliveries wait while it is paused for a secret switch
-- (docs/decisions/0068-webhook-secret-switch.md): still queued for it, not sent until this time has
-- passed or the merchant resumes them. Null: not paused. Nullable and without a default: the releases
-- before this one never read or write it.
ALTER TABLE webhook_endpoints ADD COLUMN paused_until timestamptz(3);
