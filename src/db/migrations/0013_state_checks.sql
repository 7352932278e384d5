-- Issue 12 item 3 (docs/decisions/0022-state-machines.md): every status or state column refuses a value
-- outside its union. These two were the last without a CHECK; every other one has had it since its table
-- was created (test/state-checks.test.ts reads the catalog to keep it so).

-- The acquirer's payment status, as the acquirer reports it (src/modules/acquirer/types.ts ProviderStatus);
-- null until the acquirer has created the payment.
ALTER TABLE charges
  ADD CONSTRAINT charges_provider_status_check
  CHECK (provider_status IN ('awaiting_payment', 'requires_action', 'succeeded', 'failed', 'canceled',
                             'partially_refunded', 'refunded'));

-- What applying a notification did (a `duplicate` is never stored: it is the row that already exists).
ALTER TABLE provider_notifications
  ADD CONSTRAINT provider_notifications_outcome_check
  CHECK (outcome IN ('applied', 'stale', 'unknown_payment', 'mismatch', 'unconfirmed'));
