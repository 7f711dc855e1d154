// What a server holds in Docker volumes (GET /api/servers/{id}/volumes) and what one managed
// volume is now (GET /api/volumes/{id}/usage): observed on the server, never assumed.
import { containerMounts, duOf, volumeLs } from '../hosts/commands/volume.js';
import type { HostAccess } from '../hosts/host-access.js';
import { VOLUME_LABEL } from '../model/volume-mount.js';
import { dockerNameOf, type VolumeRow } from '../store/repositories/volumes.js';
import { usersOf, type VolumeContext } from './volume-ops.js';

export interface ServerVolume {
  dockerName: string;
  driver: string;
  labels: Record<string, string>;
  /** The managed volume it is (its id and name), or null: unmanaged, a candidate for adoption. */
  volumeId: string | null;
  volumeName: string | null;
  managed: boolean;
  containers: Array<{ name: string; running: boolean }>;
}

/** `k=v,k2=v2` as docker volume ls prints labels. */
export function parseLabels(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** Pure: the server's volumes, each with the containers mounting it, matched to the managed volumes of the store. */
export function inventoryOf(lsLines: string, mountLines: string, managed: VolumeRow[]): ServerVolume[] {
  const users = new Map<string, Array<{ name: string; running: boolean }>>();
  for (const line of mountLines.split('\n')) {
    const [name, state, mounts] = line.split('\t');
    if (!name) continue;
    for (const m of (mounts ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
      users.set(m, [...users.get(m) ?? [], { name, running: state === 'running' }]);
    }
  }
  const byDockerName = new Map(managed.map((v) => [dockerNameOf(v), v]));
  return lsLines.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { Name: string; Driver: string; Labels?: string })
    .map((d) => {
      const labels = parseLabels(d.Labels);
      const v = byDockerName.get(d.Name);
      // managed: the store names it AND it carries that volume's label (a look-alike is not ours)
      const ours = !!v && labels[VOLUME_LABEL] === v.id;
      return {
        dockerName: d.Name, driver: d.Driver, labels, volumeId: ours ? v!.id : null, volumeName: ours ? v!.name : null, managed: ours,
        containers: users.get(d.Name) ?? [],
      };
    }).sort((a, b) => a.dockerName.localeCompare(b.dockerName));
}

export async function serverInventory(s: { hosts: HostAccess }, serverId: string, managed: VolumeRow[]): Promise<ServerVolume[]> {
  const [ls, mounts] = await Promise.all([s.hosts.exec(serverId, volumeLs()), s.hosts.exec(serverId, containerMounts())]);
  return inventoryOf(ls.stdout, mounts.stdout, managed);
}

/** A managed volume now: whether its Docker volume exists, its size (du in a helper container) and who mounts it. */
export async function volumeUsage(ctx: VolumeContext, v: VolumeRow): Promise<{ dockerName: string; exists: boolean; sizeBytes: number | null; containers: Array<{ name: string; running: boolean }> }> {
  const dockerName = dockerNameOf(v);
  const ls = await ctx.hosts.exec(v.serverId, volumeLs());
  const exists = ls.stdout.split('\n').some((l) => l.trim() && (JSON.parse(l) as { Name: string }).Name === dockerName);
  if (!exists) return { dockerName, exists, sizeBytes: null, containers: [] };
  // who mounts it first: the helper that measures it mounts it too
  const containers = await usersOf(ctx, v);
  const du = await ctx.hosts.exec(v.serverId, duOf(ctx.helperImage, dockerName), { timeoutMs: 120_000 });
  const kib = Number(du.stdout.trim().split(/\s+/)[0]);
  return { dockerName, exists, sizeBytes: Number.isFinite(kib) ? kib * 1024 : null, containers };
}
