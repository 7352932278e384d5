/**
 * The one form of an expected failure (docs/decisions/0020-domain-errors.md): a service returns a
 * `Result<T, E>`, where `E` is its module's error union from `errors.ts`, discriminated by `code`.
 * Bugs and broken dependencies stay exceptions. Routes turn an error into the envelope with the module's
 * exhaustive `ErrorTable` (src/http/errors.ts); nothing below a route knows about HTTP.
 */
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<E> = { readonly ok: false; readonly error: E };
export type Result<T, E extends DomainError> = Ok<T> | Err<E>;

/** A domain error: a stable `code` plus whatever the caller needs to explain it. */
export interface DomainError {
  readonly code: string;
}

export function ok(): Ok<void>;
export function ok<T>(value: T): Ok<T>;
export function ok<T>(value?: T): Ok<T | undefined> {
  return { ok: true, value };
}

export function err<E extends DomainError>(error: E): Err<E> {
  return { ok: false, error };
}
