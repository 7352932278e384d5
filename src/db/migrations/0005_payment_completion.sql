-- Payment completion (issue 6): what the checkout and the acquirer's notifications move, the inbox of
-- those notifications, refunds, and the events announced in the same transaction as each change.

-- What the gateway keeps of a payment: brand and last four digits, never the number or the CVC.
ALTER TABLE charges
  ADD COLUMN card_brand        text,
  ADD COLUMN card_last4        text CHECK (card_last4 ~ '^[0-9]{4}$'),
  ADD COLUMN card_attempts     integer NOT NULL DEFAULT 0 CHECK (card_attempts >= 0),
  ADD COLUMN failure_code      text,
  ADD COLUMN failure_message   text,
  -- Where the customer sends a bank transfer (IBAN, account holder, payment reference), from the acquirer.
  ADD COLUMN bank_transfer     jsonb,
  ADD COLUMN refunded_amount   bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
  -- When the charge reached its final status (`succeeded`, `failed` or `expired`).
  ADD COLUMN finalized_at      timestamptz(3);

-- The checkout finds a charge by its acquirer payment id (`/c/<paymentId>`); provider_payment_id is unique.
-- The expiry job finds unpaid charges past their time.
CREATE INDEX charges_expiry_idx ON charges (expires_at) WHERE status = 'pending' AND creation_state = 'created';

-- Every notification the acquirers sent, once per notification id (the deduplication of product
-- decision 20). A row is written and applied in one transaction, so a notification is applied once.
CREATE TABLE provider_notifications (
  provider      text NOT NULL,
  id            text NOT NULL,
  type          text NOT NULL,
  payment_id    text NOT NULL,
  charge_id     text REFERENCES charges (id),
  body          jsonb NOT NULL,
  -- What applying it did: `applied`, `stale` (older than what the charge already knew), `unknown_payment`.
  outcome       text NOT NULL,
  received_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (provider, id)
);

CREATE INDEX provider_notifications_charge_idx ON provider_notifications (charge_id, received_at);

CREATE TABLE refunds (
  id                  text PRIMARY KEY,
  charge_id           text NOT NULL REFERENCES charges (id),
  organization_id     text NOT NULL REFERENCES organizations (id),
  environment         text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  amount              bigint NOT NULL CHECK (amount > 0),
  currency            text NOT NULL CHECK (currency = 'TRY'),
  -- `pending` while the acquirer is asked, then `succeeded`; `failed` when the acquirer refused it.
  status              text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  reason              text,
  -- The request's X-Idempotency-Key: a retry after `provider_unavailable` continues this refund.
  idempotency_key     text,
  provider_refund_id  text UNIQUE,
  failure_code        text,
  failure_message     text,
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL
);

CREATE INDEX refunds_charge_idx ON refunds (charge_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX refunds_idempotency_key ON refunds (charge_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX refunds_pending_idx ON refunds (updated_at) WHERE status = 'pending';

-- The transactional outbox of product decision 28: each row is written in the transaction of the change
-- it announces; the webhook worker (issue 7) delivers it. Append-only.
CREATE TABLE events (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  type             text NOT NULL,
  -- The charge, refund or payout the event is about.
  resource_id      text NOT NULL,
  payload          jsonb NOT NULL,
  created_at       timestamptz(3) NOT NULL
);

CREATE INDEX events_list_idx ON events (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX events_resource_idx ON events (resource_id, created_at);
-- One event of each kind per resource: a state reached twice is announced once.
CREATE UNIQUE INDEX events_once_idx ON events (resource_id, type) WHERE type <> 'charge.refunded';
