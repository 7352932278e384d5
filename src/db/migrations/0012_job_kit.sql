-- Issue 12 item 1: one job kit for every background job (docs/decisions/0021-job-kit.md).
-- A queue row is claimed with FOR UPDATE SKIP LOCKED in due order; the claim takes a lease (a token, and
-- the due time moved forward by the lease, as webhook delivery does) and counts the attempt. The outcome
-- is recorded under the token; a failure waits a capped, jittered backoff; after the last attempt the row
-- is parked: kept, never claimed again, and raised to the operator.

-- Charge expiry: cancel at the acquirer, then apply its answer. Due at `expires_at` until a failed attempt
-- sets `expiry_next_attempt_at`.
ALTER TABLE charges
  ADD COLUMN expiry_attempts integer NOT NULL DEFAULT 0 CHECK (expiry_attempts >= 0),
  ADD COLUMN expiry_next_attempt_at timestamptz(3),
  ADD COLUMN expiry_lease_token text,
  ADD COLUMN expiry_parked_at timestamptz(3),
  ADD COLUMN expiry_last_error text;
CREATE INDEX charges_expiry_due_idx ON charges ((coalesce(expiry_next_attempt_at, expires_at)))
  WHERE status = 'pending' AND creation_state = 'created' AND expiry_parked_at IS NULL;
CREATE INDEX charges_expiry_parked_idx ON charges (expiry_parked_at) WHERE expiry_parked_at IS NOT NULL;

-- Refund retry: a pending refund is due `retryAfter` after its last change until a failed attempt sets
-- `next_attempt_at`.
ALTER TABLE refunds
  ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  ADD COLUMN next_attempt_at timestamptz(3),
  ADD COLUMN lease_token text,
  ADD COLUMN parked_at timestamptz(3),
  ADD COLUMN last_error text;
CREATE INDEX refunds_retry_due_idx ON refunds ((coalesce(next_attempt_at, updated_at)))
  WHERE status = 'pending' AND parked_at IS NULL;
CREATE INDEX refunds_parked_idx ON refunds (parked_at) WHERE parked_at IS NOT NULL;

-- The e-mail outbox had attempts, a due time and the last error; it gains the lease token and the park.
ALTER TABLE emails
  ADD COLUMN lease_token text,
  ADD COLUMN parked_at timestamptz(3);
CREATE INDEX emails_parked_idx ON emails (parked_at) WHERE parked_at IS NOT NULL;

-- A parked row is raised to the operator once (subject `<job>:<row id>`).
ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
  CHECK (kind IN ('notification_mismatch', 'negative_pending_balance', 'job_parked'));

-- Calendar schedules: one row per (job, period start) claimed in the database, so a period runs once on
-- however many workers; a run that crashed leaves its lease to lapse and the next worker runs it again.
CREATE TABLE job_periods (
  job               text NOT NULL,
  period_start      timestamptz(3) NOT NULL,
  state             text NOT NULL CHECK (state IN ('running', 'done', 'parked')),
  attempts          integer NOT NULL CHECK (attempts > 0),
  lease_token       text,
  lease_expires_at  timestamptz(3),
  worker_id         text NOT NULL,
  last_error        text,
  started_at        timestamptz(3) NOT NULL,
  finished_at       timestamptz(3),
  CONSTRAINT job_periods_once PRIMARY KEY (job, period_start)
);
CREATE INDEX job_periods_age_idx ON job_periods (period_start);

-- The run log: each run of each job that did something or failed (an idle pass is not a run worth
-- keeping), pruned after its retention.
CREATE TABLE job_runs (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job             text NOT NULL,
  worker_id       text NOT NULL,
  started_at      timestamptz(3) NOT NULL,
  ended_at        timestamptz(3) NOT NULL CHECK (ended_at >= started_at),
  rows_processed  integer NOT NULL CHECK (rows_processed >= 0),
  errors          integer NOT NULL CHECK (errors >= 0),
  outcome         text NOT NULL CHECK (outcome IN ('succeeded', 'partial', 'failed')),
  error           text,
  period_start    timestamptz(3)
);
CREATE INDEX job_runs_recent_idx ON job_runs (started_at DESC, id DESC);
CREATE INDEX job_runs_job_idx ON job_runs (job, started_at DESC, id DESC);
