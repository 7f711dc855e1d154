// The one place where a failure becomes an HTTP answer: the same cause gets the same status on
// every route. Routes throw what they get (host errors, Docker API errors, database errors) and
// only throw AppError for what they decide themselves.
import { AppError, isAppError } from '../../controller/errors/app-error.js';
import { HostError } from '../../controller/hosts/errors.js';
import { SshKeyMissing } from '../../controller/hosts/host-access.js';
import { isDatabaseUnavailable } from '../../controller/store/connection-errors.js';
import { dependencyErrorIn, type DependencyError } from '../../controller/errors/dependency-error.js';

/** Seconds a client should wait before trying again after a 503 (Retry-After). */
export const RETRY_AFTER_SEC = 5;

/** What koa and its helpers throw (status-carrying errors), onto the spec's codes. */
function fromHttpError(err: { status?: number; expose?: boolean; message?: string }): AppError | null {
  switch (err.status) {
    case 400: return new AppError('VALIDATION_ERROR', err.expose && err.message ? err.message : 'Malformed request');
    case 413: return new AppError('VALIDATION_ERROR', 'The request body is too large', { status: 413 });
    case 415: return new AppError('VALIDATION_ERROR', 'Unsupported content type; send application/json', { status: 415 });
    case 404: return new AppError('NOT_FOUND', 'Not found');
    case 405: return new AppError('NOT_FOUND', 'Method not allowed on this path', { status: 405 });
    default: return null;
  }
}

/**
 * A server could not do what was asked:
 * - settings only an operator can fix (no or bad SSH key, changed host key): 409 CONFLICT;
 * - the command ran and failed on the server: 502;
 * - the server is unreachable or too slow: 503, try again later.
 */
function fromHostError(err: HostError): AppError {
  switch (err.code) {
    case 'HOST_KEY_MISMATCH':
      return new AppError('CONFLICT', err.message, { hint: 'The server presented a different host key than the pinned one. If it was rebuilt on purpose, check and pin its new key: POST /api/servers/{id}/host-key/scan, then POST /api/servers/{id}/host-key/accept.', cause: err });
    case 'SSH_CONFIG_INVALID':
      return new AppError('CONFLICT', err.message, {
        hint: err instanceof SshKeyMissing ? 'Set the environment SSH key: PUT /api/environments/{envId}/ssh-key' : 'Check the environment SSH key',
        cause: err,
      });
    case 'COMMAND_FAILED':
      return new AppError('SERVICE_UNAVAILABLE', err.message, { status: 502, cause: err });
    default:
      return new AppError('SERVICE_UNAVAILABLE', err.message, { retryable: true, hint: 'Check that the server is reachable over SSH', cause: err });
  }
}

/** The Docker API answered with an error (dockerode sets statusCode), or its local socket is away. */
function fromDockerError(err: { statusCode?: unknown; code?: unknown; message?: string }): AppError | null {
  if (typeof err.statusCode === 'number') {
    const text = (err.message ?? 'request failed').replace(/^\(HTTP code \d+\)\s*/, '');
    if (err.statusCode === 404) return new AppError('NOT_FOUND', `docker: ${text}`, { hint: 'The container or image does not exist on the server: deploy the service first' });
    if (err.statusCode === 409) return new AppError('CONFLICT', `docker: ${text}`);
    return new AppError('SERVICE_UNAVAILABLE', `docker: ${text}`, { status: 502 });
  }
  if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'EACCES') {
    return new AppError('SERVICE_UNAVAILABLE', `docker socket: ${err.message ?? String(err.code)}`, { retryable: true });
  }
  return null;
}

/** Another dependency (object storage, registry, receiver): 503 when unreachable, 502 when it answered wrong. */
const fromDependencyError = (err: DependencyError): AppError => {
  if (err.kind === 'unreachable') return new AppError('SERVICE_UNAVAILABLE', err.message, { retryable: true, hint: err.hint, cause: err });
  if (err.kind === 'refused') return new AppError('CONFLICT', err.message, { hint: 'Change the URL, or allow the host in the system setting outgoingAllowList', cause: err });
  return new AppError('SERVICE_UNAVAILABLE', err.message, { status: 502, hint: err.hint, cause: err });
};

/** Any thrown value as the AppError the client gets, or null for an unexpected failure (500). */
export function toAppError(raw: unknown): AppError | null {
  if (isAppError(raw)) return raw;
  if (raw instanceof HostError) return fromHostError(raw);
  // before the database: a dependency's own connection error must not read as the database's
  const dependency = dependencyErrorIn(raw);
  if (dependency) return fromDependencyError(dependency);
  if (isDatabaseUnavailable(raw)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable; try again shortly', { retryable: true, cause: raw });
  }
  const e = raw as { status?: number; statusCode?: unknown; code?: unknown; message?: string } | null;
  if (!e || typeof e !== 'object') return null;
  return fromHttpError(e) ?? fromDockerError(e);
}
