import { AppError } from '../errors/app-error.js';

interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
  column?: string;
}

/**
 * The one place that reads PostgreSQL error codes. Unique and foreign-key violations become
 * API errors; the constraint name is ours, the driver's detail text never reaches a client.
 */
export function translateDbError(e: unknown, messages: Record<string, string> = {}): unknown {
  const err = e as PgError;
  if (!err || typeof err.code !== 'string') return e;
  const known = err.constraint ? messages[err.constraint] : undefined;
  switch (err.code) {
    case '23505':
      return new AppError('CONFLICT', known ?? 'A resource with the same unique values already exists', { cause: e });
    case '23503':
      return new AppError('CONFLICT', known ?? 'The resource is referenced by, or refers to, another resource', { cause: e });
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
