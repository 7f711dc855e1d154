// A managed volume exists before the container that mounts it (docs/volumes.md): the deploy asks
// here first. A Docker volume of the managed name that carries another volume's (or no) ownership
// label is never taken over: the deploy stops with the reason and nothing is created.
import { conflict } from '../errors/app-error.js';
import { volumeInspect } from '../hosts/commands/volume.js';
import type { HostAccess } from '../hosts/host-access.js';
import { VOLUME_LABEL } from '../model/volume-mount.js';
import { dockerNameOf, type VolumeRow } from '../store/repositories/volumes.js';
import { createDockerVolume } from './volume-ops.js';

/** Creates each volume's Docker volume when it is missing; says which it created. */
export async function ensureVolumes(s: { hosts: HostAccess }, volumes: VolumeRow[], log: (line: string) => Promise<void>): Promise<string[]> {
  const created: string[] = [];
  for (const v of volumes) {
    const name = dockerNameOf(v);
    const seen = await s.hosts.exec(v.serverId, volumeInspect(name), { check: false });
    if (seen.code === 0) {
      const labels = (JSON.parse(seen.stdout.trim() || '{}') as { Labels?: Record<string, string> | null }).Labels ?? {};
      if (labels[VOLUME_LABEL] !== v.id) {
        throw conflict(`The Docker volume ${name} on the server is not the volume ${v.name}'s (its ${VOLUME_LABEL} label is ${labels[VOLUME_LABEL] ?? 'missing'})`,
          'It was left alone; remove or rename it on the server, or name the volume otherwise');
      }
      continue;
    }
    if (!/no such volume/i.test(seen.stderr)) throw new Error(`docker volume inspect ${name} failed: ${seen.stderr.trim().slice(-300)}`);
    await createDockerVolume(s, v, name);
    await log(`created volume ${name}`);
    created.push(name);
  }
  return created;
}
