import { fillMessage, type Locale } from '../../web/i18n.js';
import { ACCOUNT_MESSAGES, type AccountMessages } from './account-i18n.js';
import { API_KEY_MESSAGES, type ApiKeyMessages } from './api-key-i18n.js';
import { SHELL_MESSAGES, type ShellMessages } from './shell-i18n.js';
import { SIGN_IN_MESSAGES, type SignInMessages } from './sign-in-i18n.js';
import type { PasswordProblemKey } from './shell-i18n.js';

export type { PasswordProblemKey };

/** The messages of the dashboard's own pages, one table per page area. */
export interface DashboardMessages extends ShellMessages, SignInMessages, AccountMessages, ApiKeyMessages {}

const messagesIn = (locale: Locale): DashboardMessages => ({
  ...SHELL_MESSAGES[locale],
  ...SIGN_IN_MESSAGES[locale],
  ...ACCOUNT_MESSAGES[locale],
  ...API_KEY_MESSAGES[locale],
});

export const DASHBOARD_MESSAGES: Record<Locale, DashboardMessages> = {
  en: messagesIn('en'),
  tr: messagesIn('tr'),
};

/**
 * Fills `{name}` placeholders and picks the plural form of a `{count, plural, one {…} other {…}}`
 * (`fillMessage`); the result is escaped by the template like any other text.
 */
export function format(template: string, values: Record<string, string | number>): string {
  return fillMessage(template, values);
}

/** The message key of a `passwordProblem` answer. */
export function passwordProblemKey(problem: string): PasswordProblemKey {
  if (problem.startsWith('must be at least')) return 'too_short';
  if (problem.startsWith('must be at most')) return 'too_long';
  if (problem.includes('repeat')) return 'repeated';
  return 'contains_email';
}
