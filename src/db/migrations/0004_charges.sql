-- Charges (issue 5): creation in two phases around the acquirer call, so that a crash between the call
-- and the response never leaves a charge half-created (docs/decisions/0007-charge-creation.md).

CREATE TABLE charges (
  id                      text PRIMARY KEY,
  organization_id         text NOT NULL REFERENCES organizations (id),
  environment             text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  amount                  bigint NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
  currency                text NOT NULL CHECK (currency = 'TRY'),
  payment_method          text NOT NULL
                          CHECK (payment_method IN ('bank_transfer', 'credit_card_tr', 'credit_card_international')),
  merchant_reference      text NOT NULL CHECK (char_length(merchant_reference) BETWEEN 1 AND 120),
  -- The merchant-visible state (product decision 13). Issue 6 moves it; creation leaves it `pending`.
  status                  text NOT NULL DEFAULT 'pending'
                          CHECK (status IN ('pending', 'succeeded', 'failed', 'expired')),
  -- Where the two-phase creation stands: `creating` (phase 1 written, the acquirer not yet answered),
  -- `created` (visible to the merchant), `rejected` (the acquirer refused it: 502 provider_rejected) or
  -- `abandoned` (the recovery job found that the acquirer never created it). Only `created` charges
  -- are ever shown; `rejected` and `abandoned` ones release their merchantReference.
  creation_state          text NOT NULL CHECK (creation_state IN ('creating', 'created', 'rejected', 'abandoned')),
  -- Who may call the acquirer for a `creating` charge: the request until then, afterwards a retry of the
  -- same idempotency key or the recovery job, whichever takes the lapsed lease first.
  creation_locked_until   timestamptz(3),
  idempotency_key         text,
  provider                text NOT NULL,
  -- The exact payment creation sent to the acquirer, written in phase 1: every retry (the request's own,
  -- a retry of its idempotency key after a crash, the recovery job) resends it unchanged, so that the
  -- acquirer's idempotency sees one request however often and from whichever process it arrives.
  provider_request        jsonb NOT NULL,
  provider_payment_id     text UNIQUE,
  provider_status         text,
  -- The acquirer's refusal (code, HTTP status, sanitised message) of a `rejected` charge.
  provider_error          jsonb,
  customer_name           text,
  customer_email          text,
  customer_phone          text,
  customer_reference      text,
  -- AES-256-GCM under a versioned key (product decision 17); never returned.
  customer_id_number_enc  text,
  metadata                jsonb,
  return_url              text,
  expires_at              timestamptz(3) NOT NULL,
  created_at              timestamptz(3) NOT NULL,
  updated_at              timestamptz(3) NOT NULL
);

-- Spec 2.2 and product decision 15: one live charge per reference, per organization and environment.
CREATE UNIQUE INDEX charges_merchant_reference_key ON charges (organization_id, environment, merchant_reference)
  WHERE creation_state IN ('creating', 'created');

-- A retry of a request (same idempotency key) finds the charge it created, even after a crash.
CREATE UNIQUE INDEX charges_idempotency_key ON charges (organization_id, environment, idempotency_key)
  WHERE idempotency_key IS NOT NULL AND creation_state IN ('creating', 'created');

CREATE INDEX charges_list_idx ON charges (organization_id, environment, created_at DESC, id DESC)
  WHERE creation_state = 'created';

CREATE INDEX charges_recovery_idx ON charges (creation_locked_until) WHERE creation_state = 'creating';
