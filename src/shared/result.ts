/**
 * Expected failures are values: a service returns `Result<T, E>` with `E` a module's union of domain
 * errors, and the route maps each error to the envelope through an exhaustive table. Bugs still throw.
 */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
