import type { FeatureFlag } from '../../db/schema.js';
import type { SignedIn } from '../users/http.js';
import { userMay, type DashboardPermission } from '../users/roles.js';
import type { DashboardMessages } from './i18n.js';

/**
 * The application shell's navigation: every area of the dashboard in one list, grouped
 * as a payments dashboard groups them, each link shown only to the users who may open its page (a
 * permission of DASHBOARD_PERMISSIONS, or a feature flag of the organization). The layout draws it on
 * every signed-in page; no page includes it itself.
 */

export interface NavLink {
  /** The element id the tests and the keyboard-only user find the link by. */
  id: string;
  path: string;
  /** A section of the page (`#…`), after the query the layout adds. */
  hash: string;
  label: string;
  /** The page shown is this area (the link gets `aria-current="page"`). */
  current: boolean;
}

export interface NavGroup {
  /** A heading over the group's links; the top group has none. */
  label: string | undefined;
  links: NavLink[];
}

type NavLabel = keyof DashboardMessages['nav'];

interface Area {
  id: string;
  path: string;
  hash?: string;
  /** The words of the link, in the navigation's messages. */
  label: NavLabel;
  permission?: DashboardPermission;
  feature?: FeatureFlag;
  /** Other path prefixes whose pages belong to this area (a payout's page belongs to Balance). */
  also?: readonly string[];
}

const GROUPS: ReadonlyArray<{ label: NavLabel | undefined; areas: Area[] }> = [
  {
    label: undefined,
    areas: [
      { id: 'home-link', path: '/dashboard', label: 'home' },
      { id: 'payments-link', path: '/dashboard/payments', label: 'payments', permission: 'readPayments' },
      {
        id: 'customers-link',
        path: '/dashboard/customers',
        label: 'customers',
        permission: 'readCustomers',
        feature: 'customers',
      },
      // Disputes, early fraud warnings and pre-dispute alerts (flag `disputes`, issue 37 item 7).
      {
        id: 'disputes-link',
        path: '/dashboard/disputes',
        label: 'disputes',
        permission: 'readPayments',
        feature: 'disputes',
      },
      // The card schemes' ratios of the month, their projection and history (flag `disputes`).
      {
        id: 'dispute-ratios-link',
        path: '/dashboard/dispute-ratios',
        label: 'disputeRatios',
        permission: 'readPayments',
        feature: 'disputes',
      },
      { id: 'exports-link', path: '/dashboard/exports', label: 'exports', permission: 'exportRecords' },
    ],
  },
  {
    label: 'money',
    areas: [
      {
        id: 'balance-link',
        path: '/dashboard/balance',
        label: 'balance',
        permission: 'readSettlements',
        also: ['/dashboard/payouts'],
      },
      {
        id: 'settlements-link',
        path: '/dashboard/settlements',
        label: 'settlements',
        permission: 'readSettlements',
      },
      { id: 'wallets-link', path: '/dashboard/wallets', label: 'wallets' },
    ],
  },
  {
    label: 'developers',
    areas: [
      { id: 'api-keys-link', path: '/dashboard/api-keys', label: 'apiKeys' },
      { id: 'webhooks-link', path: '/dashboard/webhooks', label: 'webhooks' },
      {
        id: 'events-link',
        path: '/dashboard/events',
        label: 'events',
        permission: 'readEvents',
        feature: 'events',
      },
    ],
  },
  {
    label: 'settings',
    areas: [
      // The team and its invitations live on the home page, below the organization.
      { id: 'team-link', path: '/dashboard', hash: '#team-heading', label: 'team' },
      { id: 'security-nav-link', path: '/dashboard/security', label: 'security' },
      // Every role sees the checkout's branding; owners and admins change it (`manageBranding`).
      { id: 'branding-link', path: '/dashboard/branding', label: 'branding' },
      // Refunds of pre-dispute alerts and fraud warnings by rule (flag `disputes`, issue 37 item 5).
      {
        id: 'auto-refunds-link',
        path: '/dashboard/dispute-refund-rules',
        label: 'autoRefunds',
        feature: 'disputes',
      },
    ],
  },
];

/**
 * The area a path belongs to: the area whose path, or one of whose `also` prefixes, is the longest that
 * the path is or lies under (`/dashboard` only itself).
 */
export function areaOf(path: string): string | undefined {
  let best: { area: string; length: number } | undefined;
  for (const group of GROUPS)
    for (const area of group.areas) {
      if (area.hash !== undefined) continue;
      for (const prefix of [area.path, ...(area.also ?? [])]) {
        const inside = path === prefix || (prefix !== '/dashboard' && path.startsWith(`${prefix}/`));
        if (inside && (best === undefined || prefix.length > best.length))
          best = { area: area.path, length: prefix.length };
      }
    }
  return best?.area;
}

/** The links `current` may follow, in groups, the area of `path` marked. */
export function navigationOf(current: SignedIn, m: DashboardMessages, path: string): NavGroup[] {
  const here = areaOf(path);
  const flags = current.account.organization.featureFlags;
  const groups: NavGroup[] = [];
  for (const group of GROUPS) {
    const links = group.areas
      .filter((area) => area.permission === undefined || userMay(current.account.user, area.permission))
      .filter((area) => area.feature === undefined || flags.includes(area.feature))
      .map((area) => ({
        id: area.id,
        path: area.path,
        hash: area.hash ?? '',
        label: m.nav[area.label],
        current: area.hash === undefined && area.path === here,
      }));
    if (links.length > 0)
      groups.push({ label: group.label === undefined ? undefined : m.nav[group.label], links });
  }
  return groups;
}
