// A server's disk filled: its Docker root is a small loop-mounted ext4 (FLEET_LOOP_DISK_MB=… for
// test/fleet/up.sh, or server.sh loop-disk), filled to the last block, so image pulls, container
// creation and dockerd's own writes fail with "no space left on device"; restore removes the
// filling. available() is false when no server has such a disk (the plain fleet's Docker root is
// the host's disk, which a fault must never fill).
import { hasLoopDisk, serverCtl } from '../../../test/fleet/fleet.js';
import type { Fault, FaultWorld, Injected } from '../fault.js';

export function diskFull(): Fault {
  const candidates = (world: FaultWorld) => world.fleet.servers.filter((s) => hasLoopDisk(world.fleet, s.name));
  return {
    name: 'disk-full',
    available: async (world: FaultWorld) => candidates(world).length > 0,
    async inject(world: FaultWorld): Promise<Injected> {
      const servers = candidates(world);
      if (servers.length === 0) throw new Error('disk-full: no server has a loop disk (FLEET_LOOP_DISK_MB)');
      const server = world.pick(servers).name;
      // disk-unfill is idempotent (removes what is there): safe after a failed or partial fill
      const restore = async () => { await serverCtl(server, 'disk-unfill', world.fleet); };
      let written: string;
      try {
        written = await serverCtl(server, 'disk-fill', world.fleet);
      } catch (err) {
        await restore().catch(() => undefined);
        throw err;
      }
      const detail = `filled ${Math.round(Number(written) / 1048576)} MB`;
      world.log(`disk-full: ${server} ${detail}`);
      return { target: server, detail, restore };
    },
  };
}
