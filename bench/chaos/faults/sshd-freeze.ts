// A server's sshd frozen (SIGSTOP to the listener and every per-connection sshd in the server's
// mount namespace): pooled connections stop answering without closing, new ones are never
// accepted, as on a host that hangs. Thawed with SIGCONT. The processes are found from /proc,
// by namespace and executable, the way test/fleet/server.sh stop-ssh finds them.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Fault, FaultWorld } from '../fault.js';

const SSHD = '/usr/sbin/sshd';

/** The sshd processes living in the server's mount namespace. */
export function sshdPids(world: FaultWorld, server: string): number[] {
  const ns = readFileSync(join(world.fleet.root, server, 'mntns'), 'utf8').trim();
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/mnt`) === ns && readlinkSync(`/proc/${entry}/exe`) === SSHD) out.push(Number(entry));
    } catch { /* gone meanwhile, or not ours to read */ }
  }
  return out;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch { /* exited meanwhile */ }
  }
}

export function sshdFreeze(): Fault {
  return {
    name: 'sshd-freeze',
    available: async (world) => world.fleet.servers.length > 0,
    async inject(world) {
      const server = world.pick(world.fleet.servers).name;
      const frozen = sshdPids(world, server);
      signal(frozen, 'SIGSTOP');
      return {
        target: server,
        detail: `${frozen.length} sshd processes SIGSTOPped`,
        // the same processes, and any the namespace holds now (none can start while the listener is stopped)
        async restore() {
          signal([...new Set([...frozen, ...sshdPids(world, server)])], 'SIGCONT');
        },
      };
    },
  };
}
