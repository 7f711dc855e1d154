// The error codes of the spec's envelope and the HTTP status each maps to (DECISIONS.md, Errors).
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_SCOPE: 403,
  FORBIDDEN_ROLE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  READONLY_FIELD: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
  BAD_GATEWAY: 502,
} as const;

export type ErrorCode = Exclude<keyof typeof ERROR_STATUS, 'BAD_GATEWAY'>;
