-- Issue 11: idempotent outcomes belong to the API key that produced them, every write names the key
-- that made it, and a per-key request log kept 30 days (spec 5.8, product decision 11).

-- The caller that claimed the key (`key:<id>` for an API key; null for the public application form).
-- A stored outcome is replayed to that caller only (docs/decisions/0012-api-key-activity.md).
ALTER TABLE idempotency_keys ADD COLUMN caller text;

-- The API key that created the row; null when it was made in the dashboard or by the system.
ALTER TABLE charges ADD COLUMN created_by_key_id text REFERENCES api_keys (id);
ALTER TABLE refunds ADD COLUMN created_by_key_id text REFERENCES api_keys (id);
ALTER TABLE webhook_endpoints ADD COLUMN created_by_key_id text REFERENCES api_keys (id);

-- One row per request an authenticated key made (rate-limited requests excepted): no body, no header,
-- no secret. Written in batches after the response; purged 30 days after the request.
CREATE TABLE api_key_requests (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id           text NOT NULL REFERENCES api_keys (id),
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  method           text NOT NULL CHECK (char_length(method) <= 16),
  -- The route's path template (`/v1/charges/:id`), never the raw URL or its query string.
  route            text NOT NULL CHECK (char_length(route) <= 200),
  -- The `:id` of the route, when it has one: which object the request named.
  resource_id      text CHECK (char_length(resource_id) <= 100),
  status_code      integer NOT NULL,
  request_id       text NOT NULL,
  ip               text,
  created_at       timestamptz(3) NOT NULL
);

CREATE INDEX api_key_requests_key_idx ON api_key_requests (key_id, created_at DESC, id DESC);
CREATE INDEX api_key_requests_created_idx ON api_key_requests (created_at);
