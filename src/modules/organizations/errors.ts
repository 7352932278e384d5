import { ApiError, type ErrorTable } from '../../http/errors.js';
import type { ApplicationRow } from '../../db/schema.js';

/** What underwriting and the administration of organizations refuse (issue 12 item 2). */
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
