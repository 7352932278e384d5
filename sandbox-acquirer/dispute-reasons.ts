/** What the issuer says happened; the names follow Stripe's dispute reasons. */
export const DISPUTE_REASONS = [
  'fraudulent',
  'unrecognized',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'credit_not_processed',
  'duplicate',
  'general',
] as const;

export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** What the acquirer raises on a payment; see docs/sandbox-acquirer.md, "Disputes". */
export const DISPUTE_KINDS = ['dispute', 'inquiry', 'early_fraud_warning', 'pre_dispute_alert'] as const;

export type DisputeKind = (typeof DISPUTE_KINDS)[number];

/** The card schemes a dispute comes through: the brand of the payment's card. */
export type DisputeNetwork = 'visa' | 'mastercard' | 'troy';

export const DISPUTE_NETWORKS: readonly DisputeNetwork[] = ['visa', 'mastercard', 'troy'];

/**
 * Each scheme's reason code for a reason. Visa's are its dispute conditions (10 fraud, 12 processing
 * errors, 13 consumer disputes), Mastercard's its chargeback reason codes. Troy does not publish its list:
 * the sandbox's Troy codes are its own, grouped like Visa's (11xx fraud, 12xx consumer disputes, 13xx
 * processing errors).
 */
export const REASON_CODES: Readonly<Record<DisputeNetwork, Readonly<Record<DisputeReason, string>>>> = {
  visa: {
    fraudulent: '10.4',
    unrecognized: '10.4',
    product_not_received: '13.1',
    product_unacceptable: '13.3',
    subscription_canceled: '13.2',
    credit_not_processed: '13.6',
    duplicate: '12.6.1',
    general: '13.7',
  },
  mastercard: {
    fraudulent: '4837',
    unrecognized: '4863',
    product_not_received: '4855',
    product_unacceptable: '4853',
    subscription_canceled: '4841',
    credit_not_processed: '4860',
    duplicate: '4834',
    general: '4853',
  },
  troy: {
    fraudulent: '1101',
    unrecognized: '1102',
    product_not_received: '1201',
    product_unacceptable: '1202',
    subscription_canceled: '1203',
    credit_not_processed: '1204',
    general: '1205',
    duplicate: '1301',
  },
};
