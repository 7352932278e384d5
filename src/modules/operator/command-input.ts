import { err, ok, type Result } from '../../shared/result.js';
import type { OperatorError } from './errors.js';

/** What an operator command answers: its view, or a refusal. */
export type Answer<T> = Promise<Result<T, OperatorError>>;

export const REASON_MAX_LENGTH = 2000;
export const RATE_LIMIT_MAX = 100_000;
export const BASIS_POINTS_MAX = 10_000;
/** A fixed fee in minor units: at most 16 digits (the operator API's schema says so too). */
export const FIXED_FEE_MAX = 10n ** 16n - 1n;

/** A decision or freeze reason: 1 to 2000 characters once trimmed (it is stored trimmed). */
export function checkedReason(reason: string): Result<string, OperatorError> {
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > REASON_MAX_LENGTH)
    return invalid('reason', `a reason of 1 to ${REASON_MAX_LENGTH} characters is required`);
  return ok(trimmed);
}

/** A command that needs a reason: the reason checked (`checkedReason`), then the command with it trimmed. */
export async function withReason<T>(reason: string, command: (reason: string) => Answer<T>): Answer<T> {
  const checked = checkedReason(reason);
  return checked.ok ? command(checked.value) : checked;
}

export function outOfRange(value: number, field: string, max: number, min = 0) {
  if (Number.isSafeInteger(value) && value <= max && value >= min) return undefined;
  return invalid(field, `must be a whole number from ${min} to ${max}`);
}

export function invalid(field: string, message: string) {
  return err<OperatorError>({ code: 'invalid_input', field, message });
}
