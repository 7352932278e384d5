import type { Kdb } from '../../db/database.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';

export const FEATURE_FLAGS: readonly FeatureFlag[] = [
  'payouts',
  'wallets',
  'customers',
  'events',
  'apiKeys',
  'disputes',
];
export const PAYMENT_METHODS: readonly PaymentMethod[] = [
  'bank_transfer',
  'credit_card_tr',
  'credit_card_international',
];
export const KYC_STATUSES: readonly KycStatus[] = ['REVIEWING', 'APPROVED'];

/** The fee schedule given to a newly approved merchant until an operator sets its own. */
export const DEFAULT_FEES: Record<PaymentMethod, { basisPoints: number; fixedMinor: bigint }> = {
  bank_transfer: { basisPoints: 150, fixedMinor: 0n },
  credit_card_tr: { basisPoints: 350, fixedMinor: 100n },
  credit_card_international: { basisPoints: 550, fixedMinor: 100n },
};

export interface Organization {
  id: string;
  /** The company name of the application (the legal name). */
  name: string;
  /** The trading name the checkout shows (set in the dashboard's branding page; defaults to `name`). */
  displayName: string;
  /** The checkout's brand colour, `#rrggbb`; null is the gateway's own. */
  brandColor: string | null;
  applicationId: string | null;
  contactEmail: string;
  kycStatus: KycStatus;
  featureFlags: FeatureFlag[];
  rateLimits: { live: number | null; sandbox: number | null };
  frozen: boolean;
  frozenAt: Date | null;
  frozenReason: string | null;
  /** Every card payment goes through 3-D Secure: an operator's answer to a chargeback ratio (audited). */
  threeDSecureRequired: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface FeeScheduleEntry {
  paymentMethod: PaymentMethod;
  basisPoints: number;
  fixedMinor: bigint;
}

/** What other modules may read of an organization (users: the account's organization). */
export interface OrganizationDirectory {
  find(id: string): Promise<Organization | undefined>;
}

/**
 * What the organizations module needs of dashboard accounts, as a port: the users module implements it
 * (`UserService`) and the composition root passes it in, so organizations never imports users (users
 * reads `Organization` from here). Each runs in the caller's transaction.
 */
export interface OwnerAccounts {
  /** The invited owner of an organization an application's approval creates. */
  createOwnerUser(
    db: Kdb,
    input: { organizationId: string; email: string; name: string },
  ): Promise<{ userId: string }>;
  /** The 72-hour single-use activation link of that owner. */
  createActivation(db: Kdb, input: { userId: string }): Promise<{ url: string }>;
  /** Whether a dashboard account (any organization, any status) uses this address, case-insensitively. */
  hasAccount(db: Kdb, email: string): Promise<boolean>;
  /** For a demo merchant: the invited owner gets this password and is active at once. */
  activateWithPassword(db: Kdb, input: { userId: string; password: string }): Promise<void>;
}

/** Who acts and from where: every change lands in the audit log with it. */
export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}
