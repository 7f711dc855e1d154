// PostgreSQL failed over: the primary stopped cleanly (pg_ctl stop -m fast sends the standby all
// its WAL first, so no acknowledged commit is lost), then, after a drawn gap with no writable host
// at all, the streaming standby promoted. The controllers follow it through their host list
// (docs/replicas.md). Restore re-makes the old primary a streaming standby of the new one (a
// pg_basebackup replaces its data), so the next failover goes the other way; the roles swap, the
// two nodes' ports stay.
import type { Fault } from '../fault.js';
import { otherNode, type PostgresPair } from '../../../test/support/postgres-pair.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function postgresFailover(pair: PostgresPair): Fault {
  return {
    name: 'postgres-failover',
    available: async () => {
      const old = await pair.primaryNode();
      return old !== null && (await pair.role(otherNode(old))) === 'standby';
    },
    async inject(world) {
      const old = (await pair.primaryNode())!;
      const next = otherNode(old);
      const gapMs = Math.round(world.random() * 3000);
      const restore = async () => {
        const role = await pair.role(old);
        if (role === 'standby') return;
        if ((await pair.role(next)) === 'primary') await pair.rejoin(old);
        // the promotion never happened: the old primary comes back as it was
        else if (role === 'down') await pair.startNode(old);
      };
      try {
        await pair.stopNode(old);
        await sleep(gapMs);
        await pair.promoteNode(next);
      } catch (err) {
        await restore().catch(() => undefined);
        throw err;
      }
      return {
        target: `:${pair.portOf(old)} → :${pair.portOf(next)}`,
        detail: `primary stopped, standby promoted after ${(gapMs / 1000).toFixed(1)} s; restore: old primary rejoins as standby`,
        restore,
      };
    },
  };
}
