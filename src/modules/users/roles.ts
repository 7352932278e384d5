import type { UserRole } from '../../db/schema.js';

/** Who may invite, and which roles they may hand out. Nobody invites a second owner. */
export const INVITING_ROLES: readonly UserRole[] = ['owner', 'admin'];
export const INVITABLE_ROLES: readonly UserRole[] = ['admin', 'developer', 'viewer'];

/**
 * What each dashboard role may do beyond reading, and who reads the pages that have a rule of their own:
 * the one place these rules live (the pages ask `userMay`). A viewer reads only.
 */
export const DASHBOARD_PERMISSIONS = {
  /**
   * The settlement pages and statements: the money the organization was paid. Owners, admins and viewers
   * (an accountant's seat) read them; a developer's work is the integration, not the books.
   */
  readSettlements: ['owner', 'admin', 'viewer'],
  /**
   * The customer pages (flag `customers`): who paid and their charges. Every role reads them (support
   * answers customers); the ID number is never shown to anyone.
   */
  readCustomers: ['owner', 'admin', 'developer', 'viewer'],
  /**
   * The event pages (the Developers area, flag `events`): what happened and what webhooks carried. Every
   * role reads them, as every role reads payments.
   */
  readEvents: ['owner', 'admin', 'developer', 'viewer'],
  /** The Payments pages: every role reads the charges, their timeline and ledger lines. */
  readPayments: ['owner', 'admin', 'developer', 'viewer'],
  /** Refund all or part of a charge from its page: money leaves the organization. */
  refundCharges: ['owner', 'admin'],
  /**
   * The CSV exports of charges, refunds and payouts (docs/exports.md): the books, with customers' e-mail
   * addresses. Owners, admins and viewers (the accountant's seat) export; a developer does not, as with
   * settlements (an integration reads the API with its own key instead).
   */
  exportRecords: ['owner', 'admin', 'viewer'],
  invite: INVITING_ROLES,
  manageApiKeys: ['owner', 'admin', 'developer'],
  manageWebhooks: ['owner', 'admin', 'developer'],
  /** Add a wallet, change the default, archive, cancel a change. */
  requestWalletChange: ['owner', 'admin'],
  /**
   * A manual payout from the balance page (flag `payouts`): money leaves the organization, as with a
   * refund, but only to the default wallet, whose changes an owner confirms and which cool down first.
   */
  createPayouts: ['owner', 'admin'],
  /** Confirm a wallet change from the e-mailed link. */
  confirmWalletChange: ['owner'],
  /**
   * The checkout's branding: the name, colour and logo customers see. Every role reads the page;
   * developers and viewers cannot change what customers are shown.
   */
  manageBranding: ['owner', 'admin'],
} as const satisfies Record<string, readonly UserRole[]>;
export type DashboardPermission = keyof typeof DASHBOARD_PERMISSIONS;

export function userMay(user: { role: UserRole }, permission: DashboardPermission): boolean {
  return (DASHBOARD_PERMISSIONS[permission] as readonly UserRole[]).includes(user.role);
}
