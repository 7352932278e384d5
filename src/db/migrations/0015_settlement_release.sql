-- Issues 13 and 14: the settlement batch. Pending funds are released to the available balance once per
-- organization, environment and business date, with the balance transactions each release carries; the
-- batch then pays the available balance out automatically (or carries it, with the reason); a payout
-- carries the released transactions not yet carried by an earlier payout.

CREATE TABLE settlement_batches (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  business_date    date NOT NULL,
  -- 'schedule': the daily run (or an operator's run of a date); 'test_helper': the sandbox's settle-now,
  -- whose cutoff is any moment and which the daily run's search for owners does not start from.
  origin           text NOT NULL CHECK (origin IN ('schedule', 'test_helper')),
  -- Everything credited to pending up to this instant (and not released before) is in the batch.
  cutoff           timestamptz(3) NOT NULL,
  -- released -> paid_out | carried | held; held -> paid_out | carried | held (settlement_batches_guard).
  status           text NOT NULL CHECK (status IN ('released', 'held', 'paid_out', 'carried')),
  -- TRY minor units: charges' gross, their fees, refunds (positive), and net = gross - fees - refunds.
  gross            bigint NOT NULL,
  fees             bigint NOT NULL,
  refunds          bigint NOT NULL,
  -- What the credits released; 0 when only reserves were released (the credits then wait).
  net              bigint NOT NULL CHECK (net >= 0),
  item_count       integer NOT NULL,
  -- The rolling reserve (issue 14 item 5): what this batch held back from `net` until a date, and what it
  -- released of earlier batches' reserves (settlement_reserve_releases).
  reserve_held          bigint NOT NULL DEFAULT 0 CHECK (reserve_held >= 0),
  reserve_release_date  date,
  reserve_released      bigint NOT NULL DEFAULT 0 CHECK (reserve_released >= 0),
  -- The payout phase: the automatic payout it made, or why it made none (the funds stay available).
  payout_id        text UNIQUE,
  carry_reason     text CHECK (carry_reason IN ('no_default_wallet', 'below_minimum', 'manual_schedule', 'nothing_available')),
  hold_reason      text,
  -- The rate the payout was converted at (USDT per TRY), its source and time.
  rate             text,
  rate_source      text,
  rate_at          timestamptz(3),
  -- The payout's TRY debited and USDT sent (6-decimal minor units), as its statement shows them.
  payout_amount    bigint,
  payout_usdt      bigint,
  payout_attempts  integer NOT NULL DEFAULT 0,
  -- The statement (issue 14 item 7): each owner's ended batches are chained in the order they ended;
  -- the hash covers the statement's content and the previous hash (src/modules/settlement/statement.ts).
  statement_seq    integer,
  statement_hash   text,
  previous_hash    text,
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL,
  CONSTRAINT settlement_batches_once UNIQUE (organization_id, environment, business_date),
  CONSTRAINT settlement_batches_moves CHECK (net > 0 OR reserve_released > 0),
  CONSTRAINT settlement_batches_reserve CHECK (
    reserve_held <= net AND (reserve_held = 0) = (reserve_release_date IS NULL)),
  CONSTRAINT settlement_batches_paid CHECK (
    (status = 'paid_out') = (payout_id IS NOT NULL AND rate IS NOT NULL AND payout_amount IS NOT NULL)),
  CONSTRAINT settlement_batches_carried CHECK ((status = 'carried') = (carry_reason IS NOT NULL)),
  CONSTRAINT settlement_batches_held CHECK ((status = 'held') = (hold_reason IS NOT NULL)),
  CONSTRAINT settlement_batches_statement CHECK (
    (status IN ('paid_out', 'carried')) = (statement_seq IS NOT NULL AND statement_hash IS NOT NULL)),
  CONSTRAINT settlement_batches_statement_seq UNIQUE (organization_id, environment, statement_seq)
);
CREATE INDEX settlement_batches_open_idx ON settlement_batches (business_date) WHERE status IN ('released', 'held');
CREATE INDEX settlement_batches_date_idx ON settlement_batches (business_date DESC, id DESC);
CREATE INDEX settlement_batches_schedule_idx ON settlement_batches (business_date, cutoff) WHERE origin = 'schedule';

-- The payout phase never moves backwards, and a batch's release is fixed.
CREATE FUNCTION settlement_batches_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
       (OLD.status = 'released' AND NEW.status IN ('held', 'paid_out', 'carried'))
    OR (OLD.status = 'held' AND NEW.status IN ('paid_out', 'carried'))) THEN
    RAISE EXCEPTION 'settlement batch %: % -> % is not a transition', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status IN ('paid_out', 'carried') AND ROW(NEW.*) IS DISTINCT FROM ROW(OLD.*) THEN
    RAISE EXCEPTION 'settlement batch %: a % batch is final', OLD.id, OLD.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF (NEW.organization_id, NEW.environment, NEW.business_date, NEW.origin, NEW.cutoff, NEW.gross,
      NEW.fees, NEW.refunds, NEW.net, NEW.item_count, NEW.reserve_held, NEW.reserve_release_date,
      NEW.reserve_released)
     IS DISTINCT FROM
     (OLD.organization_id, OLD.environment, OLD.business_date, OLD.origin, OLD.cutoff, OLD.gross,
      OLD.fees, OLD.refunds, OLD.net, OLD.item_count, OLD.reserve_held, OLD.reserve_release_date,
      OLD.reserve_released) THEN
    RAISE EXCEPTION 'settlement batch %: the release is fixed', OLD.id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER settlement_batches_guard BEFORE UPDATE ON settlement_batches
  FOR EACH ROW EXECUTE FUNCTION settlement_batches_guard();

-- Per organization: whether the batch pays out automatically (the default, spec section 1) or the
-- merchant pays out by hand; and the carry reason the owners were last e-mailed about, so that a
-- merchant whose funds wait (no wallet, below the minimum) is told once, not every business day.
CREATE TABLE settlement_settings (
  organization_id  text PRIMARY KEY REFERENCES organizations (id),
  payout_schedule  text NOT NULL DEFAULT 'daily' CHECK (payout_schedule IN ('daily', 'manual')),
  -- The rolling reserve: this share of each batch's net (basis points) is held for this many days.
  reserve_bps      integer NOT NULL DEFAULT 0 CHECK (reserve_bps BETWEEN 0 AND 10000),
  reserve_days     integer NOT NULL DEFAULT 0 CHECK (reserve_days BETWEEN 0 AND 365),
  carry_notice_live    text,
  carry_notice_sandbox text,
  updated_by       text NOT NULL,
  updated_at       timestamptz(3) NOT NULL
);

-- Days the operators close besides weekends and Turkish public holidays: no batch runs on them.
CREATE TABLE business_closures (
  business_date  date PRIMARY KEY,
  reason         text NOT NULL,
  declared_by    text NOT NULL,
  created_at     timestamptz(3) NOT NULL
);
CREATE INDEX settlement_batches_owner_idx ON settlement_batches (organization_id, environment, cutoff DESC);

CREATE TABLE settlement_items (
  id                  text PRIMARY KEY,
  batch_id            text NOT NULL REFERENCES settlement_batches (id),
  organization_id     text NOT NULL,
  environment         text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type                text NOT NULL CHECK (type IN ('charge', 'refund')),
  -- The charge or refund: released exactly once.
  source_id           text NOT NULL UNIQUE,
  charge_id           text NOT NULL,
  merchant_reference  text,
  -- TRY minor units: gross (negative for a refund), fee, net = amount - fee.
  amount              bigint NOT NULL,
  fee                 bigint NOT NULL,
  net                 bigint NOT NULL,
  occurred_at         timestamptz(3) NOT NULL,
  available_at        timestamptz(3) NOT NULL,
  -- The payout that carries it; null until one does (given back when that payout fails or is canceled).
  payout_id           text
);
CREATE INDEX settlement_items_payout_idx ON settlement_items (payout_id, available_at, id) WHERE payout_id IS NOT NULL;
CREATE INDEX settlement_items_unpaid_idx ON settlement_items (organization_id, environment) WHERE payout_id IS NULL;
CREATE INDEX settlement_items_batch_idx ON settlement_items (batch_id);

-- The settlement run finds the owners with new credits since the last run without reading every owner.
CREATE INDEX journal_entries_credit_time_idx ON journal_entries (created_at)
  WHERE kind IN ('charge_succeeded', 'refund');

-- A batch held for want of a usable rate is raised to the operator once (subject: the batch id).
ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
  CHECK (kind IN ('notification_mismatch', 'negative_pending_balance', 'job_parked', 'settlement_held'));

-- Which batch released each batch's reserve: once (the primary key), in the releasing batch's transaction.
CREATE TABLE settlement_reserve_releases (
  batch_id      text PRIMARY KEY REFERENCES settlement_batches (id),
  released_in   text NOT NULL REFERENCES settlement_batches (id),
  amount        bigint NOT NULL CHECK (amount > 0),
  created_at    timestamptz(3) NOT NULL
);
CREATE INDEX settlement_batches_reserve_due_idx ON settlement_batches (reserve_release_date)
  WHERE reserve_held > 0;

-- The rolling reserve's ledger entries and account.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check
  CHECK (kind IN ('charge_succeeded', 'refund', 'settlement_batch', 'payout_created', 'payout_paid',
                  'payout_returned', 'reserve_held', 'reserve_released', 'reversal'));
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_account_check;
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_account_check
  CHECK (account IN ('acquirer_clearing', 'merchant_pending', 'merchant_available', 'merchant_in_transit',
                     'fee_revenue', 'payout_clearing', 'merchant_reserve', 'fx_revenue'));

-- Issue 14 item 3: rates operators enter (a source behind the rate interface, and the fallback of the
-- live ticker). Append-only: the latest of an environment is the operator's current rate.
CREATE TABLE fx_rates (
  id            text PRIMARY KEY,
  environment   text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- USDT per TRY, an exact positive decimal.
  rate          text NOT NULL,
  reason        text NOT NULL,
  entered_by    text NOT NULL,
  entered_at    timestamptz(3) NOT NULL
);
CREATE INDEX fx_rates_latest_idx ON fx_rates (environment, entered_at DESC, id DESC);
