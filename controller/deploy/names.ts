// Validation of every name that reaches a server command. Argv quoting already keeps these from
// being interpreted by a shell; these rules also keep them from escaping a directory or being
// taken for an option, and they run before anything is sent to a server.
import { validationError } from '../errors/app-error.js';

const CONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
// registry[:port]/path/name, lower case path components as Docker requires
const IMAGE_NAME = /^(?:[A-Za-z0-9.-]+(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;
const PATH_CHARS = /^\/[A-Za-z0-9_./@+-]*$/;

export function isContainerName(v: unknown): v is string {
  return typeof v === 'string' && CONTAINER_NAME.test(v);
}
export function isImageTag(v: unknown): v is string {
  return typeof v === 'string' && TAG.test(v);
}
export function isImageName(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 255 && IMAGE_NAME.test(v);
}
/** An absolute path with no `..` or `.` segment and no character a shell or compose would read. */
export function isSafeAbsolutePath(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > 1024 || !PATH_CHARS.test(v)) return false;
  return v.split('/').slice(1).every((seg) => seg !== '..' && seg !== '.' && seg !== '');
}

export function assertContainerName(v: unknown, field = 'containerName'): string {
  if (!isContainerName(v)) throw validationError(`${field} must be 1-128 characters of letters, digits, '_', '.', '-' and start with a letter or digit`, field);
  return v;
}
export function assertImageTag(v: unknown, field = 'imageTag'): string {
  if (!isImageTag(v)) throw validationError(`${field} must be a Docker tag: letters, digits, '_', '.', '-', at most 128 characters, not starting with '.' or '-'`, field);
  return v;
}
export function assertImageName(v: unknown, field = 'imageName'): string {
  if (!isImageName(v)) throw validationError(`${field} is not a valid image name`, field);
  return v;
}
export function assertSafePath(v: unknown, field = 'composePath'): string {
  if (!isSafeAbsolutePath(v)) throw validationError(`${field} must be an absolute path without '..' segments or special characters`, field);
  return v;
}
