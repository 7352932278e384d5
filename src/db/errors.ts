/** PostgreSQL's unique_violation (SQLSTATE 23505), from node-postgres or PGlite alike. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || violated === constraint);
}

/** PostgreSQL's foreign_key_violation (SQLSTATE 23503), from node-postgres or PGlite alike. */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === '23503' && (constraint === undefined || violated === constraint);
}
