import type { Knex } from 'knex';
import type { Logger } from '../logger.js';

/** A stable 31-bit number for a job name, as the advisory lock key. */
function lockKey(name: string): number {
  let h = 0;
  for (const c of name) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h & 0x7fffffff;
}

/**
 * Periodic singleton jobs (health sweep, drift check, resync): every replica ticks, and
 * pg_try_advisory_lock lets one of them run the job; the others skip that tick.
 */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly db: Knex, private readonly logger: Logger) {}

  every(name: string, seconds: number, job: () => Promise<void>): void {
    const tick = () => {
      const p = this.runOnce(name, job).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    };
    const t = setInterval(tick, seconds * 1000);
    t.unref();
    this.timers.push(t);
  }

  async runOnce(name: string, job: () => Promise<void>): Promise<boolean> {
    const conn = await this.db.client.acquireConnection();
    try {
      const { rows } = await conn.query('SELECT pg_try_advisory_lock($1) AS ok', [lockKey(name)]);
      if (!rows[0].ok) return false;
      try {
        await job();
      } catch (e) {
        this.logger.warn('scheduled job failed', { job: name, error: (e as Error).message });
      } finally {
        await conn.query('SELECT pg_advisory_unlock($1)', [lockKey(name)]);
      }
      return true;
    } finally {
      await this.db.client.releaseConnection(conn);
    }
  }

  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    await Promise.allSettled([...this.inFlight]);
  }
}
