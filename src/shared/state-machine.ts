/**
 * The one form of a stateful resource (docs/decisions/0022-state-machines.md): its states as a union, a
 * `TRANSITIONS` table in the module's `model.ts` saying which states each may move to, and a single
 * `transition(trx, id, from[], to, patch?)` in its repository that moves a row only if it is in one of
 * `from` (`UPDATE … WHERE id = … AND state = ANY(from) RETURNING`). The database refuses any value
 * outside the union with a CHECK constraint.
 */
export type Transitions<S extends string> = { readonly [K in S]: readonly S[] };

/** Whether every state of `from` may move to `to`. */
export function allows<S extends string>(table: Transitions<S>, from: readonly S[], to: S): boolean {
  return from.length > 0 && from.every((state) => table[state].includes(to));
}

/** A move the table does not allow is a bug in the caller, not an expected failure. */
export function assertAllowed<S extends string>(
  table: Transitions<S>,
  from: readonly S[],
  to: S,
  what: string,
): void {
  if (!allows(table, from, to)) {
    throw new Error(`${what}: no transition from ${from.join(' | ')} to ${to}`);
  }
}

/** The end states of a `Transitions` table: nothing leaves them. Spread into the table after the others. */
export function endStates<S extends string>(
  ...states: readonly S[]
): { readonly [K in S]: readonly never[] } {
  return Object.fromEntries(states.map((state) => [state, []])) as unknown as {
    readonly [K in S]: readonly never[];
  };
}
