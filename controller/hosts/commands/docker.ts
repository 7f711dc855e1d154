// Docker CLI commands as argv. Nothing here runs anything (Kamal: remote actions are data); the
// ssh-driver executes them. Containers are found by stevedore.* labels, never by name patterns.

export interface RunOptions {
  name: string;
  image: string;
  detach?: boolean;
  labels?: Record<string, string>;
  env?: Record<string, string>;
  /** "hostPort:containerPort[/proto]" or "ip:hostPort:containerPort". */
  publish?: string[];
  volumes?: string[];
  network?: string;
  restart?: 'no' | 'always' | 'unless-stopped' | 'on-failure';
  healthCmd?: string;
  command?: string[];
}

// Sorted so the same options always give the same line (stable tests, stable drift reports).
const sortedEntries = (o: Record<string, string> = {}) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
const labelFilters = (labels: Record<string, string>) =>
  sortedEntries(labels).flatMap(([k, v]) => ['--filter', `label=${k}=${v}`]);

/** One JSON object per line: parse with JSON.parse per line. */
export function ps(opts: { all?: boolean; labels?: Record<string, string> } = {}): string[] {
  return ['docker', 'ps', ...(opts.all ? ['--all'] : []), ...labelFilters(opts.labels ?? {}), '--no-trunc', '--format', '{{json .}}'];
}
export const inspect = (...ids: string[]): string[] => ['docker', 'inspect', '--', ...ids];
export const inspectFormat = (format: string, id: string): string[] => ['docker', 'inspect', '--format', format, '--', id];
export const pull = (image: string): string[] => ['docker', 'pull', '--quiet', image];

export function run(o: RunOptions): string[] {
  const argv = ['docker', 'run'];
  if (o.detach !== false) argv.push('--detach');
  argv.push('--name', o.name);
  for (const [k, v] of sortedEntries(o.labels)) argv.push('--label', `${k}=${v}`);
  for (const [k, v] of sortedEntries(o.env)) argv.push('--env', `${k}=${v}`);
  for (const p of o.publish ?? []) argv.push('--publish', p);
  for (const v of o.volumes ?? []) argv.push('--volume', v);
  if (o.network) argv.push('--network', o.network);
  if (o.restart) argv.push('--restart', o.restart);
  if (o.healthCmd) argv.push('--health-cmd', o.healthCmd);
  // "--" is not accepted by docker run before the image; the image is validated by the caller.
  argv.push(o.image, ...(o.command ?? []));
  return argv;
}

export const start = (id: string): string[] => ['docker', 'start', '--', id];
export function stop(id: string, timeoutSeconds?: number): string[] {
  return ['docker', 'stop', ...(timeoutSeconds === undefined ? [] : ['--time', String(timeoutSeconds)]), '--', id];
}
export const restart = (id: string): string[] => ['docker', 'restart', '--', id];
export function rm(id: string, opts: { force?: boolean; volumes?: boolean } = {}): string[] {
  return ['docker', 'rm', ...(opts.force ? ['--force'] : []), ...(opts.volumes ? ['--volumes'] : []), '--', id];
}
export function logs(id: string, opts: { tail?: number; since?: string; timestamps?: boolean } = {}): string[] {
  const argv = ['docker', 'logs'];
  if (opts.tail !== undefined) argv.push('--tail', String(opts.tail));
  if (opts.since) argv.push('--since', opts.since);
  if (opts.timestamps) argv.push('--timestamps');
  return [...argv, '--', id];
}
export function imagePrune(opts: { all?: boolean; untilHours?: number; labels?: Record<string, string> } = {}): string[] {
  const argv = ['docker', 'image', 'prune', '--force'];
  if (opts.all) argv.push('--all');
  if (opts.untilHours !== undefined) argv.push('--filter', `until=${opts.untilHours}h`);
  for (const [k, v] of sortedEntries(opts.labels)) argv.push('--filter', `label=${k}=${v}`);
  return argv;
}
export const images = (reference?: string): string[] =>
  ['docker', 'image', 'ls', ...(reference ? ['--filter', `reference=${reference}`] : []), '--format', '{{json .}}'];
/** The password goes on stdin (exec's stdin option), never into argv or the process list. */
export const loginPasswordStdin = (registry: string, username: string): string[] =>
  ['docker', 'login', '--username', username, '--password-stdin', registry];
export const version = (): string[] => ['docker', 'version', '--format', '{{json .}}'];
export const networkCreate = (name: string, labels: Record<string, string> = {}): string[] =>
  ['docker', 'network', 'create', ...sortedEntries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]), '--', name];
export const networkInspect = (name: string): string[] => ['docker', 'network', 'inspect', '--', name];
/** Joins a network; with an alias, other containers on it resolve that name to this one too. */
export function networkConnect(network: string, container: string, opts: { alias?: string } = {}): string[] {
  return ['docker', 'network', 'connect', ...(opts.alias ? ['--alias', opts.alias] : []), '--', network, container];
}
/** Leaves a network: its aliases stop resolving to this container at once. */
export const networkDisconnect = (network: string, container: string): string[] => ['docker', 'network', 'disconnect', '--', network, container];
export const rename = (container: string, newName: string): string[] => ['docker', 'rename', '--', container, newName];
