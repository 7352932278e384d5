-- Auto-refund rules (issue 37 item 5, docs/disputes.md "Auto-refund rules"): a merchant's standing order to
-- refund pre-dispute alerts (up to an amount) and early fraud warnings (what remains refundable) through
-- the refund path, before the issuer turns them into disputes. One rule per organization, environment and
-- kind; no row is a rule that is off.
CREATE TABLE dispute_refund_rules (
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  kind             text NOT NULL CHECK (kind IN ('dispute_alert', 'fraud_warning')),
  enabled          boolean NOT NULL,
  -- The largest amount refunded automatically (TRY minor units): an alert's amount, a fraud warning's
  -- charge amount; null refunds any amount.
  max_amount       bigint CHECK (max_amount > 0),
  -- When the rule was last switched on (null while off): it covers what arrives from then on, never
  -- the alerts and warnings of before.
  enabled_at       timestamptz(3),
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL,
  -- The audit log's actor (`key:key_…`, `user:usr_…`).
  updated_by       text NOT NULL,
  PRIMARY KEY (organization_id, environment, kind),
  CHECK (enabled = (enabled_at IS NOT NULL))
);
-- The poll starts from the rules that are on (few).
CREATE INDEX dispute_refund_rules_enabled_idx ON dispute_refund_rules (kind) WHERE enabled;

-- What a rule did about each alert or warning it covered: a job-kit queue (src/worker/queue.ts) of one
-- row per alert or warning, keyed by its id, so that it is refunded at most once (the refund's
-- idempotency key is derived from it too) and a crash or an unavailable acquirer only delays it.
CREATE TABLE dispute_auto_refunds (
  -- The alert's (`dpa_`) or the warning's (`efw_`) id.
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  kind             text NOT NULL CHECK (kind IN ('dispute_alert', 'fraud_warning')),
  charge_id        text NOT NULL,
  -- The rule's limit when the row was queued (null: any amount).
  max_amount       bigint,
  -- Null while queued; then `refunded` (refund_id), `skipped` (skip_reason: the refund path's refusal,
  -- `nothing_to_refund` or `charge_disputed`; `above_limit`; `rule_off`; `alert_resolved`, `alert_expired`
  -- or `past_refund_by`) or `failed` (the acquirer refused the refund: refund_id).
  outcome          text CHECK (outcome IN ('refunded', 'skipped', 'failed')),
  refund_id        text,
  skip_reason      text,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz(3),
  lease_token      text,
  parked_at        timestamptz(3),
  last_error       text,
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL
);
-- The job kit's claim: due rows in due order.
CREATE INDEX dispute_auto_refunds_due_idx ON dispute_auto_refunds (next_attempt_at)
  WHERE outcome IS NULL AND parked_at IS NULL;

-- The poll's discovery of alerts to queue: the open ones nothing refunded yet, per merchant by arrival.
CREATE INDEX dispute_alerts_unrefunded_idx ON dispute_alerts (organization_id, environment, created_at)
  WHERE status = 'open' AND refund_id IS NULL;
