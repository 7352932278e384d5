-- Issue 16 item 5: a balance in constant time, not a SUM over every posting an owner ever had.
-- docs/decisions/0031-ledger-balance-checkpoints.md.
--
-- Each posting records the transaction that wrote it (its top-level id, never reused: xid8). A
-- checkpoint holds, per organization, environment, account and currency, the sum of every posting written
-- by a transaction older than `covers_before`: a horizon taken as the oldest transaction still running
-- (pg_snapshot_xmin), so no posting below it can ever appear later. A balance is the checkpoint plus the
-- postings at or above its horizon: the few written since the last checkpoint, read from one index range.
-- Checkpoints are written by the `ledger-checkpoints` job, never by the posting's transaction, so a busy
-- merchant's postings never wait on a balance row. The postings stay the truth: a checkpoint can always be
-- rebuilt from them, and the property tests compare both.
ALTER TABLE ledger_postings ADD COLUMN written_by xid8 NOT NULL DEFAULT pg_current_xact_id();

DROP INDEX ledger_postings_balance_idx;
-- Balances: the postings since an owner's checkpoint, one index range, summed without visiting the table.
CREATE INDEX ledger_postings_balance_idx ON ledger_postings (organization_id, environment, account, currency, written_by)
  INCLUDE (amount);
-- The checkpoint job: every posting written since the last horizon.
CREATE INDEX ledger_postings_written_by_idx ON ledger_postings (written_by);

CREATE TABLE ledger_balance_checkpoints (
  organization_id  text NOT NULL,
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  account          text NOT NULL,
  currency         text NOT NULL CHECK (currency = 'TRY'),
  -- The signed sum (debits positive) of the key's postings with written_by < covers_before.
  balance          numeric(30, 0) NOT NULL,
  covers_before    xid8 NOT NULL,
  updated_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (organization_id, environment, account, currency)
);

-- The horizon the last checkpoint run reached (one row): every key with postings below it is in
-- ledger_balance_checkpoints up to it.
CREATE TABLE ledger_checkpoint_horizon (
  singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  covers_before    xid8 NOT NULL,
  updated_at       timestamptz(3) NOT NULL
);
