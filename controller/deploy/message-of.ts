import { AppError } from '../errors/app-error.js';
import { HostError } from '../hosts/errors.js';
import { hideHostPaths } from './host-paths.js';

/**
 * The human message of anything thrown: host and app errors are written for people already.
 * Paths into a server's Docker data directory are hidden (host-paths.ts): this is the text step
 * errors, plan events and rollout conditions record.
 */
export const messageOf = (e: unknown): string =>
  hideHostPaths(e instanceof HostError || e instanceof AppError || e instanceof Error ? e.message : String(e));
