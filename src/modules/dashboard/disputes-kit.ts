import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import type { DisputeService } from '../disputes/service.js';
import type { FileService } from '../files/index.js';
import { localeOf, type SignedIn } from '../users/http.js';
import type { UserService } from '../users/service.js';
import { DISPUTE_MESSAGES, type DisputeMessages } from './disputes-i18n.js';
import { displayTime, viewReader, type PageKit } from './kit.js';
import { formatSigned } from './payment-views.js';

/** What every Disputes page shares (disputes.ts registers them). */

export interface DisputePagesOptions {
  kit: PageKit;
  clock: Clock;
  users: Pick<UserService, 'recordAudit'>;
  /** The same use cases as `/v1/disputes…`, `/v1/fraud-warnings` and `/v1/dispute-alerts`. */
  disputes: Pick<DisputeService, 'list' | 'get' | 'evidence' | 'accept' | 'listFraudWarnings' | 'listAlerts'>;
  /** The same uploads as `POST /v1/files` (purpose `dispute_evidence`), and the staged files' names. */
  files: Pick<FileService, 'upload' | 'get'>;
}

export const DISPUTES_PATH = '/dashboard/disputes';
export const disputePath = (id: string) => `${DISPUTES_PATH}/${encodeURIComponent(id)}`;
/** Cases per page of each list. */
export const PAGE_LIMIT = 25;
/** A deadline this close is shown highlighted. */
const DUE_SOON_MS = 48 * 3600 * 1000;

export const DISPUTE_STATUSES = [
  'needs_response',
  'under_review',
  'won',
  'lost',
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
] as const;

export const dm = (request: FastifyRequest): DisputeMessages => DISPUTE_MESSAGES[localeOf(request)];

/** What every Disputes page gives its view: the words, the money and the deadline's highlight. */
export function pageData({ kit, clock }: DisputePagesOptions, request: FastifyRequest, current: SignedIn) {
  const messages = dm(request);
  const locale = localeOf(request);
  const now = clock.now().getTime();
  return {
    title: () => messages.title,
    csrf: current.session.csrfToken,
    environment: current.session.environment,
    dm: messages,
    money: (amount: string) => formatSigned(amount, locale),
    canAnswer: kit.may(current, 'refundCharges'),
    /** The deadline shown, and whether it is within 48 hours from now. */
    due: (at: string | null) => {
      if (at === null) return { shown: messages.noDeadline, soon: false, passed: false };
      const left = new Date(at).getTime() - now;
      return { shown: displayTime(at), soon: left > 0 && left <= DUE_SOON_MS, passed: left <= 0 };
    },
  };
}

/** Every role reads the Disputes pages, of an organization with the `disputes` flag (otherwise 404). */
export const reader = viewReader<DisputePagesOptions>({
  permission: 'readPayments',
  feature: 'disputes',
  view: 'dashboard-disputes',
  data: (request, current) => ({
    title: () => dm(request).title,
    csrf: current.session.csrfToken,
    environment: current.session.environment,
    dm: dm(request),
    tab: 'disputes',
  }),
});
