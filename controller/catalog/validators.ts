import { validationError } from '../errors/app-error.js';
import type { VolumeEntry } from '../model/volume-mount.js';
import { readYamlValue } from '../yaml/read-yaml.js';
import { CONTAINER_PATH_HINT, reservedContainerPath } from '../deploy/container-paths.js';

/**
 * Rules for the values that end up in compose files, env files and argument arrays on a server.
 * Each throws VALIDATION_ERROR naming the field, before anything is stored or run. The regexes
 * admit no whitespace, quote, `$`, `;`, backtick or NUL where a value could reach a shell or a
 * path, and no `..` segment where a value names a file.
 */

/** Docker's container name rule, at least two characters; also used for service names. */
export const NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9_.-]{1,127}$';
export const TAG_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';
export const ENV_KEY_PATTERN = '^[A-Z_][A-Z0-9_]*$';
export const TYPE_NAME_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,62}$';

const IPV4 = String.raw`(?:\d{1,3}(?:\.\d{1,3}){3})`;
const IPV6 = String.raw`(?:\[[0-9a-fA-F:.]+\])`;
const RANGE = String.raw`\d{1,5}(?:-\d{1,5})?`;
// [ip:][hostPort[-end]:]containerPort[-end][/proto]
const PORT_RE = new RegExp(`^(?:(${IPV4}|${IPV6}):)?(?:(${RANGE}):)?(${RANGE})(?:/(tcp|udp|sctp))?$`);

const SAFE_PATH_CHARS = /^[A-Za-z0-9._\/@+-]+$/;
const VOLUME_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const VOLUME_MODES = /^(?:ro|rw|z|Z|nocopy|cached|delegated|consistent|rprivate|private|rshared|shared|rslave|slave)(?:,(?:ro|rw|z|Z|nocopy|cached|delegated|consistent|rprivate|private|rshared|shared|rslave|slave))*$/;
const PLACEHOLDER = /^\$\{[A-Z_][A-Z0-9_]*\}/;
// Any C0 control character (NUL, newline, escape...) or DEL.
const CONTROL = /[\u0000-\u001f\u007f]/;

const IMAGE_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const IMAGE_HOST = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::\d{1,5})?$/;
const IMAGE_PATH = new RegExp(`^${IMAGE_COMPONENT}(?:/${IMAGE_COMPONENT})*$`);

/** Docker's reading: the first component is a registry host only if it has a '.' or ':' or is localhost. */
function isImageName(name: string): boolean {
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  if (first && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    return IMAGE_HOST.test(first) && IMAGE_PATH.test(name.slice(slash + 1));
  }
  return IMAGE_PATH.test(name);
}

const hasDotDot = (p: string) => p.split('/').some((seg) => seg === '..');

function portNumbers(range: string, field: string) {
  const [a, b] = range.split('-').map(Number);
  if (a < 1 || a > 65535 || (b !== undefined && (b < a || b > 65535))) {
    throw validationError(`${field}: port ${range} is out of range (1-65535)`, field);
  }
  return b === undefined ? 1 : b - a + 1;
}

/** "80", "8080:80", "127.0.0.1:8080:80/tcp", "[::1]:8000-8001:80-81". */
export function assertPortSpec(spec: string, field: string): void {
  const m = PORT_RE.exec(spec);
  if (!m) {
    throw validationError(`${field} must look like [ip:][hostPort:]containerPort[/tcp|udp], e.g. 127.0.0.1:8080:80`, field);
  }
  const [, ip, host, container] = m;
  if (ip && !ip.startsWith('[') && ip.split('.').some((o) => Number(o) > 255)) {
    throw validationError(`${field}: ${ip} is not an IPv4 address`, field);
  }
  const n = portNumbers(container, field);
  if (host && portNumbers(host, field) !== n) {
    throw validationError(`${field}: the host and container port ranges differ in size`, field);
  }
}

function assertHostPath(p: string, field: string, what: string) {
  if (!SAFE_PATH_CHARS.test(p)) {
    throw validationError(`${field}: the ${what} may only hold letters, digits and . _ / @ + -`, field);
  }
  if (hasDotDot(p)) throw validationError(`${field}: the ${what} must not contain a '..' segment`, field);
}

/** "name:/data", "/srv/app:/data:ro", "./conf:/etc/app:ro" or an anonymous "/data". */
export function assertVolumeSpec(spec: string, field: string): void {
  const parts = spec.split(':');
  if (parts.length > 3 || parts.some((p) => p === '')) {
    throw validationError(`${field} must look like source:/target[:mode] or /target`, field);
  }
  const [first, second, mode] = parts;
  const target = parts.length === 1 ? first : second;
  if (!target.startsWith('/')) throw validationError(`${field}: the container path must be absolute`, field);
  assertHostPath(target, field, 'container path');
  const reserved = reservedContainerPath(target);
  if (reserved) throw validationError(`${field}: the container path ${target} ${reserved}`, field, CONTAINER_PATH_HINT);
  if (parts.length > 1) {
    if (first.startsWith('/') || first.startsWith('./')) assertHostPath(first, field, 'host path');
    else if (!VOLUME_NAME.test(first)) {
      throw validationError(`${field}: the source must be an absolute path, a ./relative path or a volume name`, field);
    }
  }
  if (mode !== undefined && !VOLUME_MODES.test(mode)) {
    throw validationError(`${field}: unknown volume mode '${mode}' (ro, rw, z, Z, ...)`, field);
  }
}

/** A service's volumes entry: short syntax, or a managed volume `{volume, mount, readOnly?}` mounted at a container path. */
export function assertVolumeEntry(entry: VolumeEntry, field: string): void {
  if (typeof entry === 'string') return assertVolumeSpec(entry, field);
  assertVolumeSpec(entry.mount, field);
}

/** An absolute file path on a server: no `..`, no NUL, only safe characters. */
export function assertAbsolutePath(p: string, field: string): void {
  if (CONTROL.test(p)) throw validationError(`${field} must not contain control characters`, field);
  if (!p.startsWith('/')) throw validationError(`${field} must be an absolute path`, field);
  assertHostPath(p, field, 'path');
  if (p.endsWith('/')) throw validationError(`${field} must name a file, not a directory`, field);
}

/** Env keys like API_URL; values are text with ${KEY} placeholders, one line each. */
export function assertEnv(env: Record<string, string>, field = 'env'): void {
  for (const [key, value] of Object.entries(env)) {
    if (!new RegExp(ENV_KEY_PATTERN).test(key)) {
      throw validationError(`${field}: key '${key}' must match ${ENV_KEY_PATTERN}`, `${field}.${key}`);
    }
    // Compose escapes a literal dollar as $$; every other ${ must open a placeholder like ${API_HOST}.
    const unescaped = value.replaceAll('$$', '');
    for (let i = unescaped.indexOf('${'); i >= 0; i = unescaped.indexOf('${', i + 2)) {
      if (!PLACEHOLDER.test(unescaped.slice(i))) {
        throw validationError(`${field}.${key} has a malformed placeholder: use \${KEY} with KEY like ${ENV_KEY_PATTERN}, or $$ for a literal $`, `${field}.${key}`);
      }
    }
    if (CONTROL.test(value)) {
      throw validationError(`${field}.${key} must be one line without control characters`, `${field}.${key}`,
        'Put multi-line values in a config file or a secret');
    }
  }
}

/** An argument array (command, healthcheck test, predefined command): non-empty, no control characters. */
export function assertArgv(argv: string[], field: string): void {
  argv.forEach((arg, i) => {
    if (CONTROL.test(arg)) throw validationError(`${field}.${i} must not contain control characters`, `${field}.${i}`);
  });
}

export function assertHealthCheckTest(test: string[], field = 'healthCheck.test'): void {
  if (!['NONE', 'CMD', 'CMD-SHELL'].includes(test[0])) {
    throw validationError(`${field} must start with CMD, CMD-SHELL or NONE`, `${field}.0`);
  }
  assertArgv(test, field);
}

/** Image name without a tag or digest: registry.local:5000/acme/api. */
export function assertImageName(name: string, field = 'imageName'): void {
  if (name.includes('@')) throw validationError(`${field} must not include a digest`, field);
  const lastSlash = name.lastIndexOf('/');
  if (name.slice(lastSlash + 1).includes(':')) {
    throw validationError(`${field} must not include a tag`, field, 'Set the tag as imageTag on the service');
  }
  if (name.length > 255 || !isImageName(name)) {
    throw validationError(`${field} is not a valid image name (lowercase path components, optional registry host)`, field);
  }
}

/** A compose template must at least be a YAML mapping; compose rules are checked at deploy time. */
export function assertComposeTemplate(text: string, field = 'composeTemplate'): void {
  if (text.includes('\u0000')) throw validationError(`${field} must not contain NUL`, field);
  const value = readYamlValue(text, field, field);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw validationError(`${field} must be a YAML mapping`, field);
}
