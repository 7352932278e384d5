-- Disputes (issue 37, docs/decisions/0076-disputes.md): what the acquirer says of a succeeded charge after
-- the fact. Each row is the gateway's copy of one acquirer dispute resource, applied from the acquirer's
-- read-back (never from a notification's body), moving forward only. Every table is keyed by
-- organization_id and environment; the acquirer's id is unique per acquirer, so a replayed notification
-- finds its row.

-- Chargebacks and inquiries. An inquiry is a dispute whose status starts with `warning_` (stage
-- `inquiry`); when it escalates, the same row becomes a chargeback.
CREATE TABLE disputes (
  id                   text PRIMARY KEY,
  organization_id      text NOT NULL REFERENCES organizations (id),
  environment          text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  charge_id            text NOT NULL REFERENCES charges (id),
  provider             text NOT NULL,
  provider_dispute_id  text NOT NULL,
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL CHECK (currency = 'TRY'),
  reason               text NOT NULL CHECK (reason IN ('fraudulent', 'unrecognized', 'product_not_received',
                         'product_unacceptable', 'subscription_canceled', 'credit_not_processed', 'duplicate',
                         'general')),
  reason_code          text NOT NULL CHECK (char_length(reason_code) BETWEEN 1 AND 20),
  network              text NOT NULL CHECK (network IN ('visa', 'mastercard', 'troy', 'unknown')),
  status               text NOT NULL CHECK (status IN ('warning_needs_response', 'warning_under_review',
                         'warning_closed', 'needs_response', 'under_review', 'won', 'lost')),
  stage                text NOT NULL CHECK (stage IN ('inquiry', 'chargeback', 'pre_arbitration')),
  -- How far along the state machine the row is (disputes/model.ts): a read-back of a lower rank is older
  -- than what the row knows and changes nothing.
  rank                 integer NOT NULL,
  evidence_due_by      timestamptz(3),
  -- The merchant's staged evidence of the current stage (text fields and file ids), and what was sent.
  evidence             jsonb NOT NULL DEFAULT '{}',
  evidence_submitted_at timestamptz(3),
  submissions          jsonb NOT NULL DEFAULT '[]',
  -- The acquirer's word on money: what it withdrew and reinstated so far (sums of its movements).
  amount_withdrawn     bigint NOT NULL DEFAULT 0 CHECK (amount_withdrawn >= 0),
  amount_reinstated    bigint NOT NULL DEFAULT 0 CHECK (amount_reinstated >= 0),
  -- Those movements (`{ id, type, amount, createdAt }`), each booked once as a ledger entry of its id.
  movements            jsonb NOT NULL DEFAULT '[]',
  -- The dispute came over an amount already refunded (product decision 38: applied anyway).
  credit_processed     boolean NOT NULL DEFAULT false,
  alert_id             text,
  closed_by            text CHECK (closed_by IN ('acceptance', 'decision', 'deadline', 'refund')),
  closed_at            timestamptz(3),
  escalated_at         timestamptz(3),
  provider_created_at  timestamptz(3) NOT NULL,
  provider_updated_at  timestamptz(3) NOT NULL,
  created_at           timestamptz(3) NOT NULL,
  updated_at           timestamptz(3) NOT NULL,
  UNIQUE (provider, provider_dispute_id)
);
CREATE INDEX disputes_list_idx ON disputes (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX disputes_charge_idx ON disputes (charge_id);
-- The operator's queue: open cases across merchants by deadline.
CREATE INDEX disputes_due_idx ON disputes (evidence_due_by)
  WHERE status IN ('warning_needs_response', 'needs_response');

-- Early fraud warnings (TC40 / SAFE reports): no lifecycle at the acquirer.
CREATE TABLE fraud_warnings (
  id                   text PRIMARY KEY,
  organization_id      text NOT NULL REFERENCES organizations (id),
  environment          text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  charge_id            text NOT NULL REFERENCES charges (id),
  provider             text NOT NULL,
  provider_warning_id  text NOT NULL,
  reason               text NOT NULL,
  reason_code          text NOT NULL,
  network              text NOT NULL CHECK (network IN ('visa', 'mastercard', 'troy', 'unknown')),
  -- The refund an auto-refund rule (or the merchant) made because of it.
  refund_id            text,
  provider_created_at  timestamptz(3) NOT NULL,
  created_at           timestamptz(3) NOT NULL,
  updated_at           timestamptz(3) NOT NULL,
  UNIQUE (provider, provider_warning_id)
);
CREATE INDEX fraud_warnings_list_idx ON fraud_warnings (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX fraud_warnings_charge_idx ON fraud_warnings (charge_id);

-- Pre-dispute alerts: the issuer drops the case if the charge is refunded before `refund_by`.
CREATE TABLE dispute_alerts (
  id                   text PRIMARY KEY,
  organization_id      text NOT NULL REFERENCES organizations (id),
  environment          text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  charge_id            text NOT NULL REFERENCES charges (id),
  provider             text NOT NULL,
  provider_alert_id    text NOT NULL,
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL CHECK (currency = 'TRY'),
  reason               text NOT NULL,
  reason_code          text NOT NULL,
  network              text NOT NULL CHECK (network IN ('visa', 'mastercard', 'troy', 'unknown')),
  status               text NOT NULL CHECK (status IN ('open', 'resolved', 'expired')),
  rank                 integer NOT NULL,
  refund_by            timestamptz(3) NOT NULL,
  refund_id            text,
  closed_at            timestamptz(3),
  provider_created_at  timestamptz(3) NOT NULL,
  provider_updated_at  timestamptz(3) NOT NULL,
  created_at           timestamptz(3) NOT NULL,
  updated_at           timestamptz(3) NOT NULL,
  UNIQUE (provider, provider_alert_id)
);
CREATE INDEX dispute_alerts_list_idx ON dispute_alerts (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX dispute_alerts_charge_idx ON dispute_alerts (charge_id);

-- The dispute fee of an organization's fee schedule (TRY minor units per dispute stage that withdraws
-- funds); without a row, the default of organizations/types.ts. `fee_returned_on_win`: whether a won
-- dispute gives the fee back (default: it does not).
CREATE TABLE dispute_fee_schedules (
  organization_id      text PRIMARY KEY REFERENCES organizations (id),
  fee_minor            bigint NOT NULL CHECK (fee_minor >= 0),
  fee_returned_on_win  boolean NOT NULL,
  updated_at           timestamptz(3) NOT NULL
);

-- The ledger's dispute entries: funds withdrawn and reinstated (one per acquirer movement), and the fee
-- of a stage and its return (one per dispute and stage).
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check
  CHECK (kind IN ('charge_succeeded', 'refund', 'settlement_batch', 'payout_created', 'payout_paid',
                  'payout_returned', 'reserve_held', 'reserve_released', 'reversal',
                  'dispute_funds_withdrawn', 'dispute_funds_reinstated', 'dispute_fee', 'dispute_fee_returned',
                  'debt_recovered'));

-- Dispute entries name their charge, as refunds do (migration 0029), for settlement's items.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_charge_check;
ALTER TABLE journal_entries
  ADD CONSTRAINT journal_entries_charge_check
    CHECK (charge_id IS NULL OR kind IN ('charge_succeeded', 'refund', 'dispute_funds_withdrawn',
                                         'dispute_funds_reinstated', 'dispute_fee', 'dispute_fee_returned'))
    NOT VALID;

-- Settlement batches release dispute entries with charges and refunds (netted, never paid out around):
-- their items are of type `dispute`, and the run finds owners with any of these entries by one index. A
-- debt the waiting credits leave is taken from the available balance first (`debt_recovered`, an item of
-- type `recovery` of the batch that later releases it).
ALTER TABLE settlement_items DROP CONSTRAINT settlement_items_type_check;
ALTER TABLE settlement_items ADD CONSTRAINT settlement_items_type_check
  CHECK (type IN ('charge', 'refund', 'dispute', 'recovery'));
DROP INDEX journal_entries_credit_time_idx;
CREATE INDEX journal_entries_credit_time_idx ON journal_entries (created_at)
  WHERE kind IN ('charge_succeeded', 'refund', 'dispute_funds_withdrawn', 'dispute_funds_reinstated',
                 'dispute_fee', 'dispute_fee_returned', 'debt_recovered');

-- Reconciliation matches the settlement report's dispute lines with the ledger's dispute funds entries.
ALTER TABLE reconciliation_differences DROP CONSTRAINT reconciliation_differences_item_check;
ALTER TABLE reconciliation_differences ADD CONSTRAINT reconciliation_differences_item_check
  CHECK (item IN ('payment', 'refund', 'dispute_debit', 'dispute_reversal'));

-- Dispute events repeat per resource (a dispute is updated, closed, withdrawn from more than once).
DROP INDEX events_once_idx;
CREATE UNIQUE INDEX events_once_idx ON events (resource_id, type)
  WHERE type NOT IN ('charge.refunded', 'wallet.default_changed', 'dispute.updated', 'dispute.closed',
                     'dispute.funds_withdrawn', 'dispute.funds_reinstated');

ALTER TABLE organizations DROP CONSTRAINT organizations_feature_flags_check;
ALTER TABLE organizations ADD CONSTRAINT organizations_feature_flags_check
  CHECK (feature_flags <@ ARRAY['payouts', 'wallets', 'customers', 'events', 'apiKeys', 'disputes']::text[]);

ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
  CHECK (kind IN ('notification_mismatch', 'negative_pending_balance', 'job_parked', 'settlement_held',
                  'reconciliation_differences', 'refund_mismatch', 'payout_sent_not_pending',
                  'dispute_debt_unrecoverable', 'dispute_ratio'));
