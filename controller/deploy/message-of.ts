import { AppError } from '../errors/app-error.js';
import { HostError } from '../hosts/errors.js';

/** The human message of anything thrown: host and app errors are written for people already. */
export const messageOf = (e: unknown): string =>
  e instanceof HostError || e instanceof AppError || e instanceof Error ? e.message : String(e);
