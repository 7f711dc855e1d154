// A server's dockerd stopped (like `systemctl stop docker`: its containers stop with it, there is
// no live-restore), held down, then started again with the same flags; containers with a restart
// policy come back by themselves.
import { serverCtl } from '../../../test/fleet/fleet.js';
import type { Fault } from '../fault.js';

export function dockerdRestart(): Fault {
  return {
    name: 'dockerd-restart',
    available: async (world) => world.fleet.servers.length > 0,
    async inject(world) {
      const server = world.pick(world.fleet.servers).name;
      const restore = async () => {
        await serverCtl(server, 'start-docker', world.fleet);
      };
      await serverCtl(server, 'stop-docker', world.fleet).catch(async (err) => {
        await restore().catch(() => undefined);
        throw err;
      });
      return { target: server, detail: 'dockerd stopped, its containers with it', restore };
    },
  };
}
