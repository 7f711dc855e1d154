// A server's link cut: the host end of its veth goes down, so every packet between the server and
// the rest of the fleet is dropped. Established SSH connections stall (nothing resets them) and new
// ones time out, as when a server's cable is pulled or its network partitioned; restore brings the
// link back and the same connections carry on if they have not timed out meanwhile.
import { serverCtl } from '../../../test/fleet/fleet.js';
import type { Fault, FaultWorld, Injected } from '../fault.js';

export function linkCut(): Fault {
  return {
    name: 'link-cut',
    available: async (world: FaultWorld) => world.fleet.servers.length > 0,
    async inject(world: FaultWorld): Promise<Injected> {
      const server = world.pick(world.fleet.servers).name;
      // link-up is idempotent: as many restores as the harness likes, and one after a failed cut
      const restore = async () => { await serverCtl(server, 'link-up', world.fleet); };
      try {
        await serverCtl(server, 'link-down', world.fleet);
      } catch (err) {
        await restore().catch(() => undefined);
        throw err;
      }
      world.log(`link-cut: ${server}'s link is down`);
      return { target: server, restore };
    },
  };
}
