// Latency and packet loss on a server's link: `tc qdisc … netem` on the host end of its veth (the
// packets towards the server), so every round trip to it takes the drawn delay (± jitter) longer
// and a share of the packets is lost. Needs `tc` and a kernel with the netem qdisc
// (CONFIG_NET_SCH_NETEM); available() is false where either is missing.
import { netemSupported, serverCtl } from '../../../test/fleet/fleet.js';
import type { Fault, FaultWorld, Injected } from '../fault.js';

export interface NetemDraw {
  delayMs: number;
  jitterMs: number;
  lossPct: number;
}

/** The bounds of a draw: slow and lossy enough to matter, not so much that every connection dies. */
export const NETEM_BOUNDS = { delayMs: [50, 400], jitterFraction: 0.25, lossPct: [0, 15] } as const;

/** One draw of delay (50-400 ms), jitter (up to a quarter of the delay) and loss (0-15 %), whole numbers. */
export function drawNetem(random: () => number): NetemDraw {
  const [dMin, dMax] = NETEM_BOUNDS.delayMs;
  const [lMin, lMax] = NETEM_BOUNDS.lossPct;
  const delayMs = dMin + Math.floor(random() * (dMax - dMin + 1));
  const jitterMs = Math.floor(random() * (Math.floor(delayMs * NETEM_BOUNDS.jitterFraction) + 1));
  const lossPct = lMin + Math.floor(random() * (lMax - lMin + 1));
  return { delayMs, jitterMs, lossPct };
}

export function describeNetem(d: NetemDraw): string {
  return `delay ${d.delayMs}ms ±${d.jitterMs}ms loss ${d.lossPct}%`;
}

export function netem(): Fault {
  let supported: Promise<boolean> | undefined;
  return {
    name: 'netem',
    available: async (world: FaultWorld) => world.fleet.servers.length > 0 && await (supported ??= netemSupported()),
    async inject(world: FaultWorld): Promise<Injected> {
      const server = world.pick(world.fleet.servers).name;
      const draw = drawNetem(world.random);
      // netem-clear is idempotent (nothing to clear is fine): safe after a failed inject
      const restore = async () => { await serverCtl(server, 'netem-clear', world.fleet); };
      try {
        await serverCtl(server, { action: 'netem', ...draw }, world.fleet);
      } catch (err) {
        await restore().catch(() => undefined);
        throw err;
      }
      const detail = describeNetem(draw);
      world.log(`netem: ${server} ${detail}`);
      return { target: server, detail, restore };
    },
  };
}
