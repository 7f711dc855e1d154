// One plan at a time per server: a session advisory lock keyed by the server id, held on its own
// connection for the duration of the step (controller/store/session-locks.ts). When a controller
// dies its connection closes and PostgreSQL releases the lock, so a crash never leaves a server locked.
import type { SessionLocks } from '../store/session-locks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ServerBusy extends Error {}

export async function withServerLock<T>(locks: SessionLocks, serverId: string, fn: () => Promise<T>, waitMs = 10 * 60_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await locks.tryHolding(['stevedore-server', serverId], fn);
    if (r.held) return r.value;
    if (Date.now() > deadline) throw new ServerBusy(`server ${serverId} stayed busy with another plan`);
    await sleep(250);
  }
}
