// Docker volume commands as argv (nothing here runs anything): a managed volume's create, inspect
// and removal, and the helper containers that copy a volume as a tar stream over the SSH channel
// (backups), unpack one into a new volume (restores, drills) and run a drill's check. A helper has
// no network and mounts only the volume it copies: a backup mounts it read-only. The image is
// VOLUME_HELPER_IMAGE (docker run takes no "--" before it).

export const volumeInspect = (name: string): string[] => ['docker', 'volume', 'inspect', '--format', '{{json .}}', '--', name];

export function volumeCreate(name: string, o: { driver: string; labels: Record<string, string> }): string[] {
  const labels = Object.entries(o.labels).sort(([a], [b]) => a.localeCompare(b)).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  return ['docker', 'volume', 'create', '--driver', o.driver, ...labels, '--', name];
}

/** The names of every volume of the server, one a line. */
export const volumeList = (): string[] => ['docker', 'volume', 'ls', '--format', '{{.Name}}'];

export const volumeRm = (name: string): string[] => ['docker', 'volume', 'rm', '--', name];

/** Every volume of the server, one JSON object per line. */
export const volumeLs = (): string[] => ['docker', 'volume', 'ls', '--format', '{{json .}}'];

export const HELPER_LABEL = 'stevedore.helper';

/** Containers (running or not) that mount the volume: `name state helper` per line (helper: our own copies' label). */
export const containersUsing = (name: string): string[] =>
  ['docker', 'ps', '--all', '--no-trunc', '--filter', `volume=${name}`, '--format', `{{.Names}} {{.State}} {{.Label "${HELPER_LABEL}"}}`];

const helper = (image: string, mount: string, extra: string[], command: string[]): string[] =>
  ['docker', 'run', '--rm', '--network', 'none', '--label', `${HELPER_LABEL}=volume`, ...extra, '--volume', mount, image, ...command];

/** The volume's files as a tar stream on stdout, the volume mounted read-only; `container` names the helper (to remove it when the copy is given up). */
export const tarOut = (image: string, name: string, container: string): string[] =>
  helper(image, `${name}:/v:ro`, ['--name', container], ['tar', '-C', '/v', '-cf', '-', '.']);

/** A tar stream on stdin unpacked into the (new, empty) volume. */
export const tarIn = (image: string, name: string, container: string): string[] =>
  helper(image, `${name}:/v`, ['--interactive', '--name', container], ['tar', '-C', '/v', '-xf', '-']);

/** A drill's check: `sh -c CHECK` in /v, the restored volume mounted read-only. */
export const checkIn = (image: string, name: string, check: string): string[] =>
  helper(image, `${name}:/v:ro`, ['--workdir', '/v'], ['sh', '-c', check]);

/** Every container with the names of what it mounts (volume names, host paths): `name<TAB>state<TAB>mounts` per line. */
export const containerMounts = (): string[] => ['docker', 'ps', '--all', '--no-trunc', '--format', '{{.Names}}\t{{.State}}\t{{.Mounts}}'];

/** The size of a volume in KiB (`du -sk`), from a helper container that mounts it read-only. */
export const duOf = (image: string, name: string): string[] => helper(image, `${name}:/v:ro`, [], ['du', '-sk', '/v']);
