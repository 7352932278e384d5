-- Dispute debt recovered from the rolling reserve (issue 37 item 3, docs/disputes.md "The money"): after
-- the available balance, what a dispute debt still owes is taken from the reserves the owner's batches hold
-- and have not yet released, the earliest release date first. Each row is one holding batch's part of one
-- recovery: its journal entry (`debt_recovered`, `merchant_reserve` to `merchant_pending`) has the row's
-- id as its source. A holding batch releases on its date what its recoveries left of its reserve.
CREATE TABLE settlement_reserve_recoveries (
  -- `rcv_…`: the journal entry's source.
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- The batch whose reserve it took from.
  batch_id         text NOT NULL REFERENCES settlement_batches (id),
  amount           bigint NOT NULL CHECK (amount > 0),
  -- The settlement run's business date that recovered it.
  business_date    date NOT NULL,
  created_at       timestamptz(3) NOT NULL
);
CREATE INDEX settlement_reserve_recoveries_batch_idx ON settlement_reserve_recoveries (batch_id);

CREATE TRIGGER settlement_reserve_recoveries_append_only BEFORE UPDATE OR DELETE ON settlement_reserve_recoveries
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
