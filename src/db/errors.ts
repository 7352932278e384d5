import { NoAcceptableHostError } from './hosts.js';

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

/** Errors of a socket that cannot reach, or lost, its server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * SQLSTATEs of a server that is gone or cannot take the work now: class 08 (connection exception),
 * admin and crash shutdown, "the database system is starting up", and a write sent to a standby.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '25006']);

/**
 * The database is unreachable or is not (yet) a writable primary: a failover in progress (ADR 0040).
 * The request answers 503 `service_unavailable`; its transaction, if any, was rolled back or never began.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof NoAcceptableHostError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code))) return true;
  if (typeof code === 'string' && /^08[0-9A-Z]{3}$/.test(code)) return true;
  // node-postgres's own: a connection that ended under a query, or a pool that waited too long.
  if (
    typeof message === 'string' &&
    (message.startsWith('Connection terminated') ||
      message.includes('timeout exceeded when trying to connect') ||
      message.includes('is not queryable'))
  ) {
    return true;
  }
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}
