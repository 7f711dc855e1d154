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
 * Periodic singleton jobs (health sweep, drift check, resync): every replica ticks, and
 * pg_try_advisory_lock lets one of them run the job; the others skip that tick.
 * A tick never throws: a database that cannot be reached skips the tick (logged once per outage)
 * and the next tick tries again, so the process outlives any outage.
 */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly outages = new Map<string, Outage>();

  constructor(private readonly locks: SessionLocks, private readonly logger: Logger) {}

  every(name: string, seconds: number, job: () => Promise<void>): void {
    const tick = () => {
      // a slow job (a sweep over unreachable servers) is not started twice
      if ([...this.inFlight].some((p) => (p as { job?: string }).job === name)) return;
      const p: Promise<unknown> & { job?: string } = this.runOnce(name, job).catch(() => false).finally(() => this.inFlight.delete(p));
      p.job = name;
      this.inFlight.add(p);
    };
    const t = setInterval(tick, seconds * 1000);
    t.unref();
    this.timers.push(t);
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
      return true;
    } catch (e) {
      outage.failed(e, { job: name });
      return locked;
    }
  }

  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    await Promise.allSettled([...this.inFlight]);
  }
}
