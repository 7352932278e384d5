-- Issue 13 (and the first half of issue 14's batch): pending funds released to the available balance,
-- once per organization, environment and business date, with the balance transactions each release
-- carries; a payout then carries the released transactions not yet carried by an earlier payout.

CREATE TABLE settlement_batches (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  business_date    date NOT NULL,
  -- Everything credited to pending up to this instant (and not released before) is in the batch.
  cutoff           timestamptz(3) NOT NULL,
  status           text NOT NULL CHECK (status IN ('released')),
  -- TRY minor units: charges' gross, their fees, refunds (positive), and net = gross - fees - refunds.
  gross            bigint NOT NULL,
  fees             bigint NOT NULL,
  refunds          bigint NOT NULL,
  net              bigint NOT NULL CHECK (net > 0),
  item_count       integer NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  CONSTRAINT settlement_batches_once UNIQUE (organization_id, environment, business_date)
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
