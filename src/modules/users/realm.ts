import type { Realm } from '../../http/session.js';
import { MINUTE } from '../../shared/clock.js';

/** The session realm of dashboard accounts. */
export const DASHBOARD_REALM: Realm = 'dashboard';
/** A password was right but the second factor is still owed: that half-open session is short-lived. */
export const PENDING_MFA_TTL_MS = 10 * MINUTE;
