-- docs/decisions/0055-refund-answers-and-unexpected-transfers.md: two money problems an operator must look
-- at, raised once per subject. `refund_mismatch` (subject: the refund id): the acquirer answered a refund
-- with another amount, currency or payment than the gateway asked for, or a success for a refund the
-- gateway had recorded failed; nothing is booked on its word. `payout_sent_not_pending` (subject: the
-- payout id): the rail sent a transfer for a payout that had left `pending` without it (failed, canceled,
-- or in transit with another hash). Expand-only: the previous release raises a subset of these kinds.
ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
  CHECK (kind IN ('notification_mismatch', 'negative_pending_balance', 'job_parked', 'settlement_held',
                  'reconciliation_differences', 'refund_mismatch', 'payout_sent_not_pending'));
