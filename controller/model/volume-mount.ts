// A service's `volumes` entry: Docker's short syntax as written (`src:/dst[:mode]`), or a managed
// Volume by name (`{volume, mount, readOnly?}`, docs/volumes.md). A managed volume's Docker name
// carries its environment's id, so two environments' volumes of the same name never meet on a
// server, and the container policy can tell one environment's volume from another's.
export interface VolumeMount { volume: string; mount: string; readOnly?: boolean }
export type VolumeEntry = string | VolumeMount;

export const isVolumeMount = (v: unknown): v is VolumeMount =>
  !!v && typeof v === 'object' && typeof (v as VolumeMount).volume === 'string';

/** Short-syntax entries only (what Docker and compose read as they are). */
export const shortSyntaxOf = (entries: readonly VolumeEntry[] | null | undefined): string[] =>
  (entries ?? []).filter((v): v is string => typeof v === 'string');

/** The managed volumes an entry list names. */
export const mountsOf = (entries: readonly VolumeEntry[] | null | undefined): VolumeMount[] => (entries ?? []).filter(isVolumeMount);

const PREFIX = 'stevedore-';
const MANAGED_NAME = /^stevedore-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-/;

/** The Docker name of a managed volume of an environment (`suffix`: a restore's or drill's new volume). */
export function dockerVolumeName(environmentId: string, name: string, suffix?: string): string {
  return `${PREFIX}${environmentId}-${name}${suffix ? `-${suffix}` : ''}`;
}

/** The environment a Docker volume name belongs to when it is a managed volume's name, else null. */
export function environmentOfVolumeName(dockerName: string): string | null {
  return MANAGED_NAME.exec(dockerName)?.[1] ?? null;
}

export const VOLUME_LABEL = 'stevedore.volume-id';

/**
 * The short-syntax form of each entry, managed volumes resolved to their Docker names
 * (`dockerNames`: volume name → Docker name); throws naming an unknown volume.
 */
export function resolveVolumeEntries(entries: readonly VolumeEntry[] | null | undefined, dockerNames: Map<string, string>): string[] {
  return (entries ?? []).map((v, i) => {
    if (typeof v === 'string') return v;
    const docker = dockerNames.get(v.volume);
    if (!docker) throw Object.assign(new Error(`volumes.${i}: no volume '${v.volume}' in this environment`), { field: `volumes.${i}` });
    return `${docker}:${v.mount}${v.readOnly ? ':ro' : ''}`;
  });
}

/**
 * Where a service that mounts managed volumes may run: the one server all of them live on.
 * null when it mounts none; a problem when they live on different servers.
 */
export function volumeServerOf(mounts: VolumeMount[], servers: Map<string, { serverId: string }>): { serverId: string | null; problem: string | null } {
  const ids = [...new Set(mounts.map((m) => servers.get(m.volume)?.serverId).filter((x): x is string => !!x))];
  if (ids.length > 1) return { serverId: null, problem: `the volumes ${mounts.map((m) => m.volume).join(', ')} live on different servers: a container can mount only volumes of its own server` };
  return { serverId: ids[0] ?? null, problem: null };
}
