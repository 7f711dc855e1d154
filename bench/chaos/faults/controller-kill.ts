// A controller replica SIGKILLed (no shutdown: its plans' leases run out, its leader session
// drops), held down, then started again on the same database.
import type { Fault } from '../fault.js';
import type { Replica } from '../replicas.js';

export function controllerKill(replicas: readonly Replica[]): Fault {
  return {
    name: 'controller-kill',
    // one replica at a time: the other keeps the API up (a second kill waits for the restart)
    available: async () => replicas.every((r) => r.running),
    async inject(world) {
      const replica = world.pick(replicas);
      await replica.kill();
      return { target: `replica ${replica.name}`, detail: 'SIGKILL', restore: () => replica.start() };
    },
  };
}
