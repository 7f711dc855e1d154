import type { Logger } from '../logger.js';
import { TerminalError } from '../errors/terminal-error.js';

/** What a reconcile pass asks for next: nothing (done), or another look after a delay. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** A reconciler receives only a key ("kind/id"), re-reads everything and acts. Level-triggered. */
export type Reconciler = (id: string) => Promise<ReconcileResult | void>;

export interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  logger: Logger;
}

/**
 * De-duplicating keyed work queue: a key waits in the queue at most once; a key added while it
 * runs runs once more afterwards; one key never runs twice at the same time. Errors retry with
 * exponential backoff; TerminalError does not retry.
 */
export class WorkQueue {
  private readonly reconcilers = new Map<string, Reconciler>();
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly idle: Array<() => void> = [];
  private stopped = false;
  private readonly concurrency: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: WorkQueueOptions) {
    this.concurrency = opts.concurrency ?? 8;
    this.baseDelayMs = opts.baseDelayMs ?? 500;
    this.maxDelayMs = opts.maxDelayMs ?? 5 * 60_000;
  }

  register(kind: string, reconciler: Reconciler): void {
    this.reconcilers.set(kind, reconciler);
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(key));
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  drain(): Promise<void> {
    if (this.order.length === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.order.length = 0;
    this.queued.clear();
    await this.drain();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.order.length > 0) {
      const key = this.order.shift()!;
      this.queued.delete(key);
      this.running.add(key);
      void this.run(key);
    }
    if (this.order.length === 0 && this.running.size === 0) this.idle.splice(0).forEach((r) => r());
  }

  private async run(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const reconciler = this.reconcilers.get(key.slice(0, slash));
    try {
      if (!reconciler) throw new TerminalError(`no reconciler for ${key}`);
      const res = await reconciler(key.slice(slash + 1));
      this.failures.delete(key);
      if (res?.requeueAfterMs !== undefined) this.addAfter(key, res.requeueAfterMs);
    } catch (e) {
      if (e instanceof TerminalError) {
        this.failures.delete(key);
        this.opts.logger.warn('reconcile stalled', { key, error: e.message });
      } else {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1));
        // the first failure says why; the retries of the same outage only count (debug)
        const log = n === 1 ? this.opts.logger.warn : this.opts.logger.debug;
        log('reconcile failed, retrying', { key, attempt: n, delayMs: delay, error: (e as Error).message });
        this.addAfter(key, delay);
      }
    } finally {
      this.running.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
