import { AppError } from '../errors/app-error.js';
import { HostError } from '../hosts/errors.js';
import { isDatabaseUnavailable } from '../store/connection-errors.js';
import { hideHostPaths } from './host-paths.js';

/**
 * The human message of anything thrown: host and app errors are written for people already.
 * Paths into a server's Docker data directory are hidden (host-paths.ts): this is the text step
 * errors, plan events and rollout conditions record. A lost database says so, without the SQL
 * knex puts in front of the driver's message ("select … - terminating connection …").
 */
export const messageOf = (e: unknown): string => {
  if (fromTheDatabase(e)) {
    const text = (e as Error).message;
    return `the database was unreachable (${text.includes(' - ') ? text.slice(text.lastIndexOf(' - ') + 3) : text})`;
  }
  return hideHostPaths(e instanceof HostError || e instanceof AppError || e instanceof Error ? e.message : String(e));
};

/** A lost database as knex or the driver report it: not a server's refused port (a host or health-check error). */
function fromTheDatabase(e: unknown): boolean {
  if (!(e instanceof Error) || e instanceof HostError || e instanceof AppError || !isDatabaseUnavailable(e)) return false;
  const code = (e as { code?: unknown }).code;
  return (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) || e.name === 'KnexTimeoutError' || KNEX_SQL_PREFIX.test(e.message);
}

const KNEX_SQL_PREFIX = /^\s*(select|insert|update|delete|with|begin|commit|rollback|savepoint)\b.* - /is;
