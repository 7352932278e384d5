import { ApiError, type ErrorTable } from '../../http/errors.js';

/** What an application can be refused for (docs/decisions/0020-domain-errors.md). */
export type ApplicationError =
  { code: 'vertical_other_not_allowed' } | { code: 'too_many_applications'; retryAfterSeconds: number };

export const APPLICATION_ERRORS: ErrorTable<ApplicationError> = {
  vertical_other_not_allowed: () =>
    ApiError.validation([
      {
        path: 'verticalOther',
        in: 'body',
        code: 'invalid_value',
        message: 'is only allowed when vertical is "other"',
      },
    ]),
  too_many_applications: (error) =>
    new ApiError(
      'too_many_requests',
      `Too many applications from your address; retry in ${error.retryAfterSeconds} seconds.`,
    ),
};
