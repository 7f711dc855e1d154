import { AppError } from '../errors/app-error.js';
import type { UserRow } from '../store/repositories/users.js';

export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MS = 15 * 60_000;

/**
 * Repeated failed logins for one account are refused for a while, even with the right password,
 * so guessing costs time. Counters live on the user row: every replica sees them.
 */
export function assertLoginAllowed(user: UserRow, now = Date.now()): void {
  if (user.failedLoginCount < MAX_FAILED_LOGINS || !user.lastFailedLoginAt) return;
  const until = new Date(user.lastFailedLoginAt).getTime() + LOCKOUT_MS;
  if (now < until) {
    const retryAfter = Math.ceil((until - now) / 1000);
    throw new AppError('RATE_LIMITED', 'Too many failed logins for this account; try again later', { details: { retryAfter } });
  }
}
