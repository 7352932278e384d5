-- Issue 14 (docs/decisions/0049-credits-carry-their-charge.md): the entry of a charge or a refund records
-- the charge it is about and the merchant's reference of that charge, as a settlement item shows them.
-- A settlement run reads them with the pending credits instead of looking up every charge again (a
-- million lookups on a full day). Plain values, no foreign key: the ledger does not depend on the
-- charges' table. Null on every other kind, and on entries written before this migration: a run looks
-- those up as it did before.
ALTER TABLE journal_entries
  ADD COLUMN charge_id text,
  ADD COLUMN merchant_reference text;

-- Checked on new rows only (NOT VALID): the existing rows hold nulls, and validating would read them all.
ALTER TABLE journal_entries
  ADD CONSTRAINT journal_entries_charge_check
    CHECK (charge_id IS NULL OR kind IN ('charge_succeeded', 'refund')) NOT VALID,
  ADD CONSTRAINT journal_entries_reference_check
    CHECK (merchant_reference IS NULL OR charge_id IS NOT NULL) NOT VALID;
