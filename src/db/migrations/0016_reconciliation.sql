-- Issue 14 items 3 and 7: the FX spread operators set per environment, and the daily reconciliation of the acquirer's settlement report with the ledger. Each run
-- is kept as it was (append-only): what the report and the ledger said for an environment and UTC date,
-- and every difference found. The daily job makes one run per environment and date; operators may run a
-- date again, which adds a run.

CREATE TABLE reconciliation_runs (
  id                 text PRIMARY KEY,
  environment        text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  report_date        date NOT NULL,
  origin             text NOT NULL CHECK (origin IN ('schedule', 'operator')),
  -- 'matched': no difference but timing ones (booked on a neighbouring date by the other side).
  status             text NOT NULL CHECK (status IN ('matched', 'differences')),
  acquirer_payments  integer NOT NULL,
  acquirer_refunds   integer NOT NULL,
  -- TRY minor units: payments less refunds.
  acquirer_net       bigint NOT NULL,
  ledger_payments    integer NOT NULL,
  ledger_refunds     integer NOT NULL,
  ledger_net         bigint NOT NULL,
  difference_count   integer NOT NULL,
  run_by             text NOT NULL,
  created_at         timestamptz(3) NOT NULL
);
CREATE INDEX reconciliation_runs_date_idx ON reconciliation_runs (report_date DESC, created_at DESC, id DESC);

CREATE TABLE reconciliation_differences (
  run_id             text NOT NULL REFERENCES reconciliation_runs (id),
  position           integer NOT NULL,
  -- missing_in_ledger: the acquirer settled it, the ledger has no entry for it; missing_at_acquirer: the
  -- ledger booked it, the acquirer's report of the date and its neighbours lack it; amount_mismatch: both,
  -- different amounts; timing: both, on different dates.
  kind               text NOT NULL CHECK (kind IN ('missing_in_ledger', 'missing_at_acquirer', 'amount_mismatch',
                                                   'timing')),
  item               text NOT NULL CHECK (item IN ('payment', 'refund')),
  -- The acquirer's payment or refund id, and ours (a charge or refund id), as far as known.
  provider_id        text,
  gateway_id         text,
  organization_id    text,
  acquirer_amount    bigint,
  ledger_amount      bigint,
  acquirer_at        timestamptz(3),
  ledger_at          timestamptz(3),
  PRIMARY KEY (run_id, position)
);

CREATE FUNCTION reconciliation_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'reconciliation runs are kept as they were: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation', HINT = 'Run the date again: a new run is added.';
END
$$;

CREATE TRIGGER reconciliation_runs_append_only BEFORE UPDATE OR DELETE ON reconciliation_runs
  FOR EACH ROW EXECUTE FUNCTION reconciliation_refuse_change();
CREATE TRIGGER reconciliation_differences_append_only BEFORE UPDATE OR DELETE ON reconciliation_differences
  FOR EACH ROW EXECUTE FUNCTION reconciliation_refuse_change();

-- A run with differences is raised to the operator once per environment and date.
ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
  CHECK (kind IN ('notification_mismatch', 'negative_pending_balance', 'job_parked', 'settlement_held',
                  'reconciliation_differences'));

-- Issue 14 item 3: the FX spread of an environment as an operator set it (basis points off the market
-- rate); without a row, PAYOUT_FX_SPREAD_BPS.
CREATE TABLE fx_spreads (
  environment  text PRIMARY KEY CHECK (environment IN ('sandbox', 'live')),
  spread_bps   integer NOT NULL CHECK (spread_bps BETWEEN 0 AND 1000),
  updated_by   text NOT NULL,
  updated_at   timestamptz(3) NOT NULL
);
