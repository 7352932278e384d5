import { ApiError, type ErrorTable } from '../../http/errors.js';
import type { ApplicationRow } from '../../db/schema.js';

/** What underwriting and the administration of organizations refuse. */
export type OrganizationError =
  | { code: 'application_not_found'; id: string }
  | {
      code: 'application_decided';
      id: string;
      status: ApplicationRow['status'];
      /** What was asked: `reviewed`, `approved` or `rejected`. */
      action: string;
    }
  | { code: 'contact_has_account'; email: string }
  | { code: 'organization_not_found'; id: string };

/** Each refusal as the envelope the operator API and console show. */
export const ORGANIZATION_ERRORS: ErrorTable<OrganizationError> = {
  application_not_found: ({ id }) => new ApiError('not_found', `No application ${id}.`),
  application_decided: ({ id, status, action }) =>
    new ApiError('invalid_state_transition', `Application ${id} is ${status}; it cannot be ${action}.`, {
      status,
    }),
  contact_has_account: ({ email }) =>
    new ApiError(
      'invalid_state_transition',
      `A dashboard account already uses ${email}; ask the applicant for another contact address.`,
    ),
  organization_not_found: ({ id }) => new ApiError('not_found', `No organization ${id}.`),
};

/** What is wrong with each field of a branding change (the dashboard shows each beside its field). */
export interface BrandingIssues {
  displayName?:
    { problem: 'required' } | { problem: 'too_long'; max: number } | { problem: 'control_characters' };
  brandColor?:
    | { problem: 'format' }
    /** `ratio`: against white, rounded down to two decimals; `min`: the WCAG AA ratio. */
    | { problem: 'contrast'; color: string; ratio: number; min: number };
  logo?:
    | { problem: 'empty' }
    | { problem: 'too_large'; bytes: number; max: number }
    | { problem: 'svg' }
    | { problem: 'unsupported' };
}

/** What a change of the checkout's branding refuses. */
export type BrandingError =
  { code: 'invalid_branding'; issues: BrandingIssues } | { code: 'organization_not_found'; id: string };
