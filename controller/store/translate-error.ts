import { AppError } from '../errors/app-error.js';

interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
  column?: string;
}

/** What a violated constraint means: a sentence, or one naming the field to change and how. */
export type ConstraintMessage = string | { message: string; field?: string; hint?: string };

/**
 * The one place that reads PostgreSQL error codes. Unique and foreign-key violations become
 * API errors; the constraint name is ours, the driver's detail text never reaches a client.
 */
export function translateDbError(e: unknown, messages: Record<string, ConstraintMessage> = {}): unknown {
  const err = e as PgError;
  if (!err || typeof err.code !== 'string') return e;
  const said = err.constraint ? messages[err.constraint] : undefined;
  const known = typeof said === 'string' ? { message: said } : said;
  switch (err.code) {
    case '23505':
      return new AppError('CONFLICT', known?.message ?? 'A resource with the same unique values already exists', { cause: e, field: known?.field, hint: known?.hint });
    case '23503':
      return new AppError('CONFLICT', known?.message ?? 'The resource is referenced by, or refers to, another resource', { cause: e, field: known?.field, hint: known?.hint });
    case '22P02':
    case '22001':
    case '22021':
    case '22P05':
    case '22003':
      return new AppError('VALIDATION_ERROR', 'A value has the wrong format or is out of range', { cause: e });
    case '57P01':
    case '08006':
    case '08001':
    case 'ECONNREFUSED':
      return new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable', { cause: e, retryable: true });
    default:
      return e;
  }
}
