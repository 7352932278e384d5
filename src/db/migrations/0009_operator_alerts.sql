-- Issue 11: what money correctness needs an operator to look at (docs/decisions/0013 and 0014).
-- A signed acquirer notification that disagrees with its charge (amount, currency, reference, or a state
-- the acquirer does not confirm) is refused and recorded here; so is a refund that leaves a merchant's
-- pending balance below zero. Each is raised once per subject, in the transaction that found it.
CREATE TABLE operator_alerts (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind             text NOT NULL CHECK (kind IN ('notification_mismatch', 'negative_pending_balance')),
  organization_id  text REFERENCES organizations (id),
  environment      text CHECK (environment IN ('sandbox', 'live')),
  -- What it is about: the notification (`<provider>:<notification id>`) or the refund (`re_…`).
  subject_id       text NOT NULL,
  charge_id        text,
  message          text NOT NULL,
  details          jsonb NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  acknowledged_at  timestamptz(3),
  acknowledged_by  text,
  CONSTRAINT operator_alerts_once UNIQUE (kind, subject_id)
);

CREATE INDEX operator_alerts_recent_idx ON operator_alerts (created_at DESC, id DESC);
CREATE INDEX operator_alerts_open_idx ON operator_alerts (created_at DESC, id DESC) WHERE acknowledged_at IS NULL;
