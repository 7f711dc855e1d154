import { DependencyError } from '../errors/dependency-error.js';

// Which failures mean "the database is not reachable right now" (as opposed to a bad query): the
// one test the API (503), the background loops (back off) and plan recovery (say what happened) share.

/**
 * SQLSTATE classes and codes of a lost or refused connection, or a server going down; 25006 is a
 * write refused by a read-only session: the primary was demoted or fenced, and the writable host
 * is looked for again (database-target.ts).
 */
const PG_UNAVAILABLE = new Set(['25006', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', '08007']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const MESSAGES = [
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /Knex: Timeout acquiring a connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /Client was closed and is not queryable/i,
  /Connection ended unexpectedly/i,
];

export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    // another dependency's failure (its socket error below is not the database's)
    if (cur instanceof DependencyError) return false;
    const err = cur as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown[] };
    if (typeof err.code === 'string' && (PG_UNAVAILABLE.has(err.code) || SOCKET_CODES.has(err.code))) return true;
    if (err.name === 'KnexTimeoutError') return true;
    if (typeof err.message === 'string' && MESSAGES.some((re) => re.test(err.message as string))) return true;
    // AggregateError (connecting to both ::1 and 127.0.0.1 refused)
    if (Array.isArray(err.errors) && err.errors.some((x) => isDatabaseUnavailable(x))) return true;
  }
  return false;
}

/** When this process last saw the database unreachable (ms since epoch), or 0. */
let lastUnavailableAt = 0;

export function noteDatabaseUnavailable(): void {
  lastUnavailableAt = Date.now();
}

export function databaseLastUnavailableAt(): number {
  return lastUnavailableAt;
}
