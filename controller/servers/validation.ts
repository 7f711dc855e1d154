// What a server's fields may hold. hostname goes into ssh2's connect (never a shell), but it is
// also shown in messages and used by other tools: only hostnames and IP addresses are accepted,
// so no shell metacharacter, space, quote or newline can ever get in.
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
export const SERVER_NAME_RE = new RegExp(SERVER_NAME_PATTERN);
// DNS labels joined by dots (this covers IPv4), or an IPv6 address (hex groups with at least one colon)
export const HOSTNAME_PATTERN =
  '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?::[0-9.]{7,15})?$';
export const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
export const SSH_USER_PATTERN = '^[a-z_][a-z0-9_-]*[$]?$';
export const SSH_USER_RE = new RegExp(SSH_USER_PATTERN);
export const TAG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/=-]*$';
// An absolute path whose segments are never `.` or `..`: a socket path cannot climb out of where
// it names (`/var/run/../../home/u/x.sock`). Repeated and trailing slashes are normalized away.
export const SOCKET_PATH_PATTERN = '^(?:/+(?!\\.\\.?(?:/|$))[A-Za-z0-9._-]+)+/*$';
export const SOCKET_PATH_RE = new RegExp(SOCKET_PATH_PATTERN);

/** The socket path in its one spelling: `//run///docker.sock/` is `/run/docker.sock`. */
export function normalizeSocketPath(path: string): string;
export function normalizeSocketPath(path: string | null | undefined): string | null | undefined;
export function normalizeSocketPath(path: string | null | undefined): string | null | undefined {
  if (typeof path !== 'string') return path;
  return path.replace(/\/{2,}/g, '/').replace(/(.)\/+$/, '$1');
}
