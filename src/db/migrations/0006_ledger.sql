-- The double-entry ledger (issue 6, product decisions 21 to 23, docs/decisions/0008-ledger.md): every
-- movement of money is a journal entry whose postings sum to zero; balances are sums of postings.
-- Append-only, enforced here rather than trusted to the code that writes it.

CREATE TABLE journal_entries (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  kind             text NOT NULL CHECK (kind IN ('charge_succeeded', 'refund', 'settlement_batch', 'payout', 'reversal')),
  -- The charge, refund, batch or payout the entry records. No foreign key: an entry may record any of
  -- them, and the ledger must not depend on their tables.
  source_id        text NOT NULL,
  currency         text NOT NULL CHECK (currency = 'TRY'),
  created_at       timestamptz(3) NOT NULL,
  -- Each movement is recorded once, however often and however concurrently it is reported.
  CONSTRAINT journal_entries_source_key UNIQUE (kind, source_id),
  -- The target of the postings' foreign key, so that a posting cannot name another owner or currency.
  CONSTRAINT journal_entries_owner_key UNIQUE (id, organization_id, environment, currency)
);

CREATE INDEX journal_entries_owner_idx ON journal_entries (organization_id, environment, created_at);

-- Debits are positive, credits negative. The merchant's accounts carry credit balances, so what the
-- merchant is owed is the negated sum of its postings.
CREATE TABLE ledger_postings (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entry_id         bigint NOT NULL,
  organization_id  text NOT NULL,
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  account          text NOT NULL CHECK (account IN ('acquirer_clearing', 'merchant_pending', 'merchant_available',
                                                    'merchant_in_transit', 'fee_revenue', 'payout_clearing')),
  currency         text NOT NULL CHECK (currency = 'TRY'),
  amount           bigint NOT NULL CHECK (amount <> 0),
  created_at       timestamptz(3) NOT NULL,
  FOREIGN KEY (entry_id, organization_id, environment, currency)
    REFERENCES journal_entries (id, organization_id, environment, currency)
);

CREATE INDEX ledger_postings_entry_idx ON ledger_postings (entry_id);
-- Balances: one index range per organization and environment, summed without visiting the table.
CREATE INDEX ledger_postings_balance_idx ON ledger_postings (organization_id, environment, account, currency)
  INCLUDE (amount);

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation',
          HINT = 'Record a correcting journal entry (a reversal) instead.';
END
$$;

CREATE TRIGGER journal_entries_append_only BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_postings_append_only BEFORE UPDATE OR DELETE ON ledger_postings
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_postings_no_truncate BEFORE TRUNCATE ON ledger_postings
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();

-- At commit, every entry touched by the transaction has at least two postings and they sum to zero.
-- Deferred, because an entry and its postings are written by separate statements.
CREATE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  checked_entry  bigint;
  posting_count  bigint;
  total          numeric;
BEGIN
  IF TG_TABLE_NAME = 'journal_entries' THEN
    checked_entry := NEW.id;
  ELSE
    checked_entry := NEW.entry_id;
  END IF;
  SELECT count(*), coalesce(sum(amount), 0) INTO posting_count, total
    FROM ledger_postings WHERE entry_id = checked_entry;
  IF posting_count < 2 OR total <> 0 THEN
    RAISE EXCEPTION 'journal entry % is unbalanced: % postings summing to %', checked_entry, posting_count, total
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();
CREATE CONSTRAINT TRIGGER ledger_postings_balanced AFTER INSERT ON ledger_postings
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();
