// One leader among the replicas sharing a database: the one whose dedicated session holds the
// advisory lock "stevedore/leader". The leader runs the periodic scheduler and the work that must
// happen once (manifest watcher, Docker event watches, drift checks); followers serve the API and
// run the plans they start or take over. Followers try the lock again every LEADER_RETRY_MS; the
// leader checks its session on the same interval and steps down as soon as it is gone (PostgreSQL
// has then released the lock for another replica to take).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { openLockSession, type LockSession } from '../store/lock-session.js';
import { Outage } from './outage.js';

const LEADER_LOCK: [string, string] = ['stevedore', 'leader'];

/** Work that runs only while this replica leads: started on election, stopped on losing it. */
type LeaderWork = { name: string; start: () => Promise<(() => Promise<void>) | void> };

export class Leadership {
  /** This process among the replicas (logs). */
  readonly replicaId = randomUUID();
  private session: LockSession | null = null;
  private leading = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly work: LeaderWork[] = [];
  private readonly running = new Map<LeaderWork, () => Promise<void>>();
  /** Serializes elections and step-downs: leader work never starts while it is being stopped. */
  private chain: Promise<void> = Promise.resolve();
  private readonly outage: Outage;

  constructor(private readonly databaseUrl: string, private readonly retryMs: number, private readonly logger: Logger) {
    this.outage = new Outage(logger, 'leader lock session');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Registers work for the leader (runs at once when this replica leads already); the returned
   * function stops it and forgets it.
   */
  whileLeader(name: string, start: LeaderWork['start']): () => Promise<void> {
    const w: LeaderWork = { name, start };
    this.work.push(w);
    if (this.leading) this.serially(() => this.startOne(w));
    return () => this.serially(async () => {
      this.work.splice(this.work.indexOf(w), 1);
      await this.stopOne(w);
    });
  }

  /** Campaigns: the first attempt is awaited (a lone replica leads before it serves). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.serially(() => this.attempt());
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.serially(() => this.stepDown('stopping'));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.serially(() => this.attempt()).finally(() => this.schedule());
    }, this.outage.delayMs(this.retryMs, Math.max(this.retryMs, 10_000)));
    this.timer.unref();
  }

  private serially(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(fn, fn).catch((e) => this.logger.error('leadership change failed', { error: String(e) }));
    return this.chain;
  }

  /** Follower: tries the lock. Leader: checks the session still answers, else steps down. */
  private async attempt(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.leading) {
        // generous: a loaded machine answers slowly, and a needless step-down pauses the leader's work
        await this.session!.ping(Math.max(2 * this.retryMs, 10_000));
        this.outage.ok();
        return;
      }
      this.session ??= await openLockSession(this.databaseUrl, LEADER_LOCK, (why) => {
        // the session is gone and PostgreSQL released the lock with it
        this.session = null;
        if (this.leading && !this.stopped) void this.serially(() => this.stepDown(`lost the leader lock session: ${String(why)}`));
      });
      this.outage.ok();
      if (!(await this.session.tryLock())) return;
      this.leading = true;
      this.logger.info('this replica is the leader', { replica: this.replicaId });
      for (const w of this.work) await this.startOne(w);
    } catch (e) {
      this.outage.failed(e);
      if (this.leading) await this.stepDown(`the leader lock session failed: ${String(e)}`);
      const s = this.session;
      this.session = null;
      await s?.end().catch(() => undefined);
    }
  }

  private async stepDown(why: string): Promise<void> {
    const s = this.session;
    this.session = null;
    if (this.leading) {
      this.leading = false;
      (why === 'stopping' ? this.logger.info : this.logger.warn)('this replica is no longer the leader', { replica: this.replicaId, why });
      for (const w of [...this.work].reverse()) await this.stopOne(w);
    }
    await s?.end().catch(() => undefined);
  }

  private async startOne(w: LeaderWork): Promise<void> {
    try {
      const stop = await w.start();
      this.running.set(w, stop ?? (async () => undefined));
    } catch (e) {
      // one failing part of the leader's work must not keep the others from running
      this.logger.error('leader work did not start', { work: w.name, error: String(e) });
    }
  }

  private async stopOne(w: LeaderWork): Promise<void> {
    const stop = this.running.get(w);
    this.running.delete(w);
    await stop?.().catch((e) => this.logger.warn('leader work did not stop cleanly', { work: w.name, error: String(e) }));
  }
}
