-- The card schemes' ratios of one merchant, flat in its volume (issue 37 item 8, ADR 0077,
-- docs/dispute-ratios.md "Closed days"): the counts of every closed day (UTC) of an organization and
-- environment, per scheme, so that its ratio page reads about 650 rows for seven months whatever its
-- sales, and counts only the days since the summary live. The figures stay those of the rows: a day is
-- recounted whole from charges, disputes and fraud warnings, never incremented.

-- Whose days are summarised, and how far: every day in [days_from, days_until) is in dispute_ratio_days
-- (a day without any count has no row); the days from days_until on are counted live. writes_before:
-- every dispute and fraud warning written (its updated_at) before it is in the days it counts in; one
-- written since may change a summarised day (a late notification, an escalation, a second dispute that
-- makes an earlier fraud warning "also disputed"), so the days it touches are recounted before the next
-- read uses them.
CREATE TABLE dispute_ratio_summaries (
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  days_from        date NOT NULL,
  days_until       date NOT NULL,
  writes_before    timestamptz(3) NOT NULL,
  refreshed_at     timestamptz(3) NOT NULL,
  PRIMARY KEY (organization_id, environment),
  CHECK (days_until >= days_from)
);

-- One closed day's counts of one scheme, each as the ratio queries count it (disputes/ratios/repository.ts):
-- settled card sales by success time; chargebacks (an inquiry once it escalates) by the instant they count
-- at; fraud warnings by the acquirer's time, and those of them whose charge has a chargeback counted
-- before the end of the warning's month.
CREATE TABLE dispute_ratio_days (
  organization_id               text NOT NULL,
  environment                   text NOT NULL,
  day                           date NOT NULL,
  scheme                        text NOT NULL CHECK (scheme IN ('visa', 'mastercard', 'troy')),
  sales                         integer NOT NULL CHECK (sales >= 0),
  chargebacks                   integer NOT NULL CHECK (chargebacks >= 0),
  fraud_warnings                integer NOT NULL CHECK (fraud_warnings >= 0),
  fraud_warnings_also_disputed  integer NOT NULL
    CHECK (fraud_warnings_also_disputed BETWEEN 0 AND fraud_warnings),
  PRIMARY KEY (organization_id, environment, day, scheme),
  FOREIGN KEY (organization_id, environment)
    REFERENCES dispute_ratio_summaries (organization_id, environment) ON DELETE CASCADE
);

-- The disputes and fraud warnings of one owner written since a time: what a read checks before it trusts
-- the summarised days.
CREATE INDEX disputes_written_idx ON disputes (organization_id, environment, updated_at);
CREATE INDEX fraud_warnings_written_idx ON fraud_warnings (organization_id, environment, updated_at);
