import type { SessionLocks } from '../store/session-locks.js';
import type { Logger } from '../logger.js';
import { Outage } from './outage.js';

/** A stable 31-bit number for a job name, as the advisory lock key. */
function lockKey(name: string): number {
  let h = 0;
  for (const c of name) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h & 0x7fffffff;
}

/**
 * Periodic singleton jobs (health sweep, drift check, resync): only the leader replica
 * (controller/queue/leadership.ts) runs them; followers skip every tick. The job's own advisory
 * lock stays as the guard for the moment leadership changes hands while a job still runs.
 * A tick never throws: a database that cannot be reached skips the tick (logged once per outage)
 * and the next tick tries again, so the process outlives any outage.
 */
export class Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly outages = new Map<string, Outage>();

  /** `leads` tells whether this replica is the leader now. */
  constructor(private readonly locks: SessionLocks, private readonly logger: Logger, private readonly leads: () => boolean = () => true) {}

  /** Runs `job` every `seconds` on the leader; a second call for the same name replaces the first. */
  every(name: string, seconds: number, job: () => Promise<void>): void {
    const tick = () => {
      if (!this.leads()) return;
      // a slow job (a sweep over unreachable servers) is not started twice
      if ([...this.inFlight].some((p) => (p as { job?: string }).job === name)) return;
      const p: Promise<unknown> & { job?: string } = this.runOnce(name, job).catch(() => false).finally(() => this.inFlight.delete(p));
      p.job = name;
      this.inFlight.add(p);
    };
    clearInterval(this.timers.get(name));
    const t = setInterval(tick, seconds * 1000);
    t.unref();
    this.timers.set(name, t);
  }

  /** Runs the job if this replica gets its lock; false when another replica has it or the database is away. */
  async runOnce(name: string, job: () => Promise<void>): Promise<boolean> {
    let outage = this.outages.get(name);
    if (!outage) this.outages.set(name, outage = new Outage(this.logger, `scheduled job ${name}`));
    let locked = false;
    try {
      const r = await this.locks.tryHolding(lockKey(name), async () => { locked = true; await job(); });
      if (!r.held) return false;
      outage.ok();
      // one line per job run: how operators (and the replicas test) see that a job ran once
      this.logger.debug('scheduled job ran', { job: name });
      return true;
    } catch (e) {
      outage.failed(e, { job: name });
      return locked;
    }
  }

  async stop(): Promise<void> {
    this.timers.forEach((t) => clearInterval(t));
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}
