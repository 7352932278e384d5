-- Merchant webhooks (issue 7, product decisions 27 to 31): endpoints, one delivery per event and
-- endpoint (fanned out in the transaction that records the event), and the log of every attempt.

CREATE TABLE webhook_endpoints (
  id                          text PRIMARY KEY,
  organization_id             text NOT NULL REFERENCES organizations (id),
  environment                 text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  url                         text NOT NULL CHECK (char_length(url) <= 2048),
  description                 text,
  -- Event kinds, or `*` for every kind.
  enabled_events              text[] NOT NULL CHECK (cardinality(enabled_events) > 0),
  status                      text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  -- Why it is disabled: `merchant` (through the API or dashboard) or `failing` (5 days of failures).
  disabled_reason             text,
  -- The signing secret, sealed with the secret box (it is needed to sign, so it cannot be hashed).
  secret_enc                  text NOT NULL,
  -- During a rotation's grace period: the secret it replaced, still used to sign `Service-Signature`.
  previous_secret_enc         text,
  previous_secret_expires_at  timestamptz(3),
  -- First failed attempt since the last acknowledged one; null while the endpoint is healthy.
  failing_since               timestamptz(3),
  deleted_at                  timestamptz(3),
  created_at                  timestamptz(3) NOT NULL,
  updated_at                  timestamptz(3) NOT NULL,
  CHECK ((previous_secret_enc IS NULL) = (previous_secret_expires_at IS NULL))
);

CREATE INDEX webhook_endpoints_list_idx
  ON webhook_endpoints (organization_id, environment, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_failing_idx
  ON webhook_endpoints (failing_since) WHERE failing_since IS NOT NULL AND status = 'enabled' AND deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id                text PRIMARY KEY,
  event_id          text NOT NULL REFERENCES events (id),
  endpoint_id       text NOT NULL REFERENCES webhook_endpoints (id),
  organization_id   text NOT NULL REFERENCES organizations (id),
  environment       text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- `pending` until a 200 (`succeeded`) or the end of the schedule (`failed`).
  status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- When it is due; a worker that claims it moves this forward by its lease, so a crash retries it.
  next_attempt_at   timestamptz(3) NOT NULL,
  -- The claim of the worker sending it now: only that worker records the outcome.
  lease_token       text,
  last_attempt_at   timestamptz(3),
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3) NOT NULL,
  UNIQUE (event_id, endpoint_id)
);

CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';

-- Every attempt (product decision 30), kept 30 days.
CREATE TABLE webhook_attempts (
  id                text PRIMARY KEY,
  delivery_id       text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  event_id          text NOT NULL REFERENCES events (id),
  endpoint_id       text NOT NULL REFERENCES webhook_endpoints (id),
  organization_id   text NOT NULL REFERENCES organizations (id),
  environment       text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  url               text NOT NULL,
  succeeded         boolean NOT NULL,
  status_code       integer,
  latency_ms        integer NOT NULL CHECK (latency_ms >= 0),
  error             text,
  -- At most 1 KB of the answer, sanitised.
  response_excerpt  text CHECK (octet_length(response_excerpt) <= 1024),
  attempted_at      timestamptz(3) NOT NULL
);

CREATE INDEX webhook_attempts_event_idx ON webhook_attempts (event_id, attempted_at DESC);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);
CREATE INDEX webhook_attempts_age_idx ON webhook_attempts (attempted_at);
