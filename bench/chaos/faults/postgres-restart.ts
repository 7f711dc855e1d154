// The PostgreSQL primary stopped (pg_ctl stop -m fast: every session is closed), held down, then
// started again. Its standby stays a standby: while the primary is away no host accepts writes.
import type { Fault } from '../fault.js';
import type { PostgresPair } from '../../../test/support/postgres-pair.js';

export function postgresRestart(pair: PostgresPair): Fault {
  return {
    name: 'postgres-restart',
    available: async () => (await pair.primaryNode()) !== null,
    async inject() {
      const node = (await pair.primaryNode())!;
      const restore = async () => {
        if ((await pair.role(node)) === 'down') await pair.startNode(node);
      };
      await pair.stopNode(node).catch(async (err) => {
        await restore().catch(() => undefined);
        throw err;
      });
      return { target: `primary :${pair.portOf(node)}`, detail: 'pg_ctl stop -m fast', restore };
    },
  };
}
