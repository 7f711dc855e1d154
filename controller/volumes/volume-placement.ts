// A volume lives on one server, so a service that mounts it runs there and nowhere else. The one
// check behind the API's service writes and deployment placements (400 naming the field), and
// what selector placement restricts itself to (reconcilers/service/placement.ts).
import { validationError } from '../errors/app-error.js';
import { isVolumeMount, mountsOf, volumeServerOf, type VolumeEntry } from '../model/volume-mount.js';
import type { VolumesRepository } from '../store/repositories/volumes.js';

/**
 * The server the service's managed volumes pin it to (null: it mounts none). Throws 400 for an
 * unknown volume, volumes on different servers, or a deployment `serverIds` names elsewhere.
 */
export async function assertVolumePlacement(s: { volumes: VolumesRepository }, environmentId: string, entries: readonly VolumeEntry[] | null | undefined,
  serverIds: string[], field = 'volumes'): Promise<string | null> {
  const mounts = mountsOf(entries);
  if (!mounts.length) return null;
  const known = new Map((await s.volumes.listByEnvironment(environmentId)).map((v) => [v.name, v]));
  (entries ?? []).forEach((v, i) => {
    if (isVolumeMount(v) && !known.has(v.volume)) throw validationError(`volumes.${i}: no volume '${v.volume}' in this environment`, `volumes.${i}`, 'Create it first: POST /api/environments/{envId}/volumes');
  });
  const { serverId, problem } = volumeServerOf(mounts, known);
  if (problem) throw validationError(problem, 'volumes');
  const elsewhere = serverIds.find((id) => id !== serverId);
  if (elsewhere) {
    throw validationError(`the volume ${mounts[0].volume} lives on server ${serverId}, and a service that mounts it runs only there: a deployment on server ${elsewhere} cannot hold it`,
      field, 'Place the service on the volume\'s server only');
  }
  return serverId;
}
