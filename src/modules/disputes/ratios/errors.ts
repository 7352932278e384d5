import { ApiError, type ErrorTable, type ValidationIssue } from '../../../http/errors.js';

/** What the ratio use cases refuse (docs/decisions/0020-domain-errors.md). */
export type RatioSettingsError = { code: 'invalid_ratio_settings'; issues: ValidationIssue[] };

export const RATIO_SETTINGS_ERRORS: ErrorTable<RatioSettingsError> = {
  invalid_ratio_settings: (error) => ApiError.validation(error.issues, 'The ratio settings are invalid.'),
};
