import { ERROR_STATUS, type ErrorCode } from './codes.js';

export interface AppErrorOptions {
  field?: string;
  hint?: string;
  status?: number;
  /** Extra envelope properties (the envelope allows additional properties). */
  details?: Record<string, unknown>;
  /** True when trying the same thing again later may succeed. */
  retryable?: boolean;
  cause?: unknown;
}

/** A failure the API reports in the spec's envelope: {code, message, field?, hint?, requestId}. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.field = options.field;
    this.hint = options.hint;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }
}

export const validationError = (message: string, field?: string, hint?: string) =>
  new AppError('VALIDATION_ERROR', message, { field, hint });
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string, hint?: string, field?: string) =>
  new AppError('CONFLICT', message, { hint, field });
export const unauthorized = (message = 'A valid bearer token is required') =>
  new AppError('UNAUTHORIZED', message);
export const forbiddenRole = (message: string, hint?: string) =>
  new AppError('FORBIDDEN_ROLE', message, { hint });
export const forbiddenScope = (message: string, hint?: string) =>
  new AppError('FORBIDDEN_SCOPE', message, { hint });
export const readonlyField = (field: string) =>
  new AppError('READONLY_FIELD', `${field} is read-only`, { field });
export const serviceUnavailable = (message: string, hint?: string) =>
  new AppError('SERVICE_UNAVAILABLE', message, { hint, retryable: true });

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
