import { validationError } from '../errors/app-error.js';
import { CONTAINER_PATH_HINT, reservedContainerPath } from '../deploy/container-paths.js';

/**
 * A target path is where a config file lands on a server: absolute, normalised (no `.` or `..`
 * segments, no `//`), no NUL or control characters, not a directory, and not a path the kernel
 * or Docker own inside the container (controller/deploy/container-paths.ts).
 */
export function assertTargetPath(path: string, field = 'targetPath'): void {
  const fail = (why: string) => {
    throw validationError(`${field} ${why}`, field, 'Use an absolute file path such as /etc/myapp/app.conf');
  };
  if (typeof path !== 'string' || path.length === 0) fail('is required');
  if (path.length > 1024) fail('is longer than 1024 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) fail('must not contain NUL or control characters');
  if (!path.startsWith('/')) fail('must be absolute');
  if (path.endsWith('/')) fail('must name a file, not a directory');
  const segments = path.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) fail("must not contain '..', '.' or empty segments");
  const reserved = reservedContainerPath(path);
  if (reserved) throw validationError(`${field} ${path} ${reserved}`, field, CONTAINER_PATH_HINT);
}

/**
 * .env files hold secrets: always 0600, whatever the attachment asks for. Otherwise the
 * attachment's mode; without one, 0600 for a file that holds a secret value (or may: a binary
 * asset such as a key store) and 0644 for the rest.
 */
export function fileModeFor(path: string, requested: number | null | undefined, sensitive = false): number {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === '.env' || base.endsWith('.env')) return 0o600;
  return requested ?? (sensitive ? 0o600 : 0o644);
}
