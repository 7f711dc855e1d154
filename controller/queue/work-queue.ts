import type { Logger } from '../logger.js';
import { TerminalError } from '../errors/terminal-error.js';

/** What a reconcile pass asks for next: nothing (done), or another look after a delay. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** A reconciler receives only a key ("kind/id"), re-reads everything and acts. Level-triggered. */
export type Reconciler = (id: string) => Promise<ReconcileResult | void>;

/**
 * A reconciler that takes up to `maxBatch` queued keys of its kind at once (a resync of thousands)
 * so it can read their rows in a few queries instead of a few per key. Each id still has its own
 * outcome: a rejected one retries with backoff like a failed single key, the others do not.
 */
export type BatchReconciler = (ids: string[]) => Promise<Map<string, PromiseSettledResult<ReconcileResult | void>>>;

export interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  logger: Logger;
  /** Told of each settled key (its kind, result and seconds) and of each retry: /metrics. */
  observer?: QueueObserver;
}

export interface QueueObserver {
  settled(kind: string, result: 'ok' | 'error' | 'terminal', seconds: number): void;
  retried(kind: string): void;
}

/**
 * De-duplicating keyed work queue: a key waits in the queue at most once; a key added while it
 * runs runs once more afterwards; one key never runs twice at the same time. Errors retry with
 * exponential backoff; TerminalError does not retry.
 */
export class WorkQueue {
  private readonly reconcilers = new Map<string, Reconciler>();
  private readonly batchReconcilers = new Map<string, { reconcile: BatchReconciler; maxBatch: number }>();
  private readonly queued = new Set<string>();
  private readonly order = new KeyFifo();
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

  /** Queued keys of `kind` are handed over together, up to maxBatch, as one unit of concurrency. */
  registerBatch(kind: string, reconcile: BatchReconciler, maxBatch: number): void {
    this.batchReconcilers.set(kind, { reconcile, maxBatch });
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
    this.schedulePump();
  }

  // keys added in one go (a resync) are all queued before any starts: a batch kind gets them together
  private pumpScheduled = false;
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
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

  /** The key waits in the queue (added, not started yet). */
  isQueued(key: string): boolean {
    return this.queued.has(key);
  }

  /** Keys waiting, running and waiting out a delay (a gauge of /metrics). */
  depth(): { queued: number; running: number; delayed: number } {
    return { queued: this.order.length, running: this.running.size, delayed: this.timers.size };
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
    this.order.clear();
    this.queued.clear();
    await this.drain();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.order.length > 0) {
      const key = this.order.shift();
      const kind = kindOf(key);
      const batch = this.batchReconcilers.get(kind);
      const keys = [key];
      // the keys of the same kind queued right behind it join it (a resync enqueues them together)
      while (batch && keys.length < batch.maxBatch && this.order.length > 0 && kindOf(this.order.first()) === kind) keys.push(this.order.shift());
      for (const k of keys) {
        this.queued.delete(k);
        this.running.add(k);
      }
      if (batch) void this.runBatch(keys, batch.reconcile);
      else void this.run(key);
    }
    if (this.order.length === 0 && this.running.size === 0) this.idle.splice(0).forEach((r) => r());
  }

  private async run(key: string): Promise<void> {
    const reconciler = this.reconcilers.get(kindOf(key));
    const started = performance.now();
    let outcome: PromiseSettledResult<ReconcileResult | void>;
    try {
      if (!reconciler) throw new TerminalError(`no reconciler for ${key}`);
      outcome = { status: 'fulfilled', value: await reconciler(idOf(key)) };
    } catch (e) {
      outcome = { status: 'rejected', reason: e };
    }
    this.settle(key, outcome, started);
    this.pump();
  }

  private async runBatch(keys: string[], reconcile: BatchReconciler): Promise<void> {
    const ids = keys.map(idOf);
    const started = performance.now();
    let outcomes: Map<string, PromiseSettledResult<ReconcileResult | void>>;
    try {
      outcomes = await reconcile(ids);
    } catch (e) {
      outcomes = new Map(ids.map((id) => [id, { status: 'rejected', reason: e }]));
    }
    keys.forEach((k, i) => this.settle(k, outcomes.get(ids[i]!) ?? { status: 'fulfilled', value: undefined }, started));
    this.pump();
  }

  /** `started`: when its pass began (a batch's keys share their batch's time). */
  private settle(key: string, outcome: PromiseSettledResult<ReconcileResult | void>, started: number): void {
    const result = outcome.status === 'fulfilled' ? 'ok' : outcome.reason instanceof TerminalError ? 'terminal' : 'error';
    this.opts.observer?.settled(kindOf(key), result, (performance.now() - started) / 1000);
    if (outcome.status === 'fulfilled') {
      this.failures.delete(key);
      if (outcome.value?.requeueAfterMs !== undefined) this.addAfter(key, outcome.value.requeueAfterMs);
    } else if (outcome.reason instanceof TerminalError) {
      this.failures.delete(key);
      this.opts.logger.warn('reconcile stalled', { key, error: outcome.reason.message });
    } else {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1));
      // the first failure says why; the retries of the same outage only count (debug)
      const log = n === 1 ? this.opts.logger.warn : this.opts.logger.debug;
      log('reconcile failed, retrying', { key, attempt: n, delayMs: delay, error: (outcome.reason as Error).message });
      this.opts.observer?.retried(kindOf(key));
      this.addAfter(key, delay);
    }
    this.running.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }
}

const kindOf = (key: string) => key.slice(0, key.indexOf('/'));
const idOf = (key: string) => key.slice(key.indexOf('/') + 1);

/**
 * The queue's order: an array read from a moving head. Array.prototype.shift moves every element
 * left once the array is large (V8 trims in place only small ones): a resync of 100,000 keys took
 * seconds of the leader's CPU in shifts alone, growing with the square of the keys.
 */
class KeyFifo {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  first(): string {
    return this.items[this.head]!;
  }

  shift(): string {
    const key = this.items[this.head]!;
    this.items[this.head++] = '';
    // what was read is dropped once it is half the array: each key is copied once on average
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
