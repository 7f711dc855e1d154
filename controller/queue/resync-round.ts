// A periodic resync queues every key of its kind (10,000 servers, 100,000 deployments). One that
// lasts longer than its period (a busy machine) would be joined by the next tick: every
// store-wide read again, and the keys already looked at in this round queued again behind those
// not yet reached, each tick adding to a round that then never ends. The queue is a FIFO, so
// while the last key a round queued still waits, so does the round: the tick then adds nothing.
import type { WorkQueue } from './work-queue.js';

export class ResyncRound {
  private tail: string | null = null;

  constructor(private readonly queue: Pick<WorkQueue, 'add' | 'isQueued'>) {}

  /** Queues a key of this round. */
  add(key: string): void {
    this.queue.add(key);
    this.tail = key;
  }

  /** The last key the last round queued still waits in the queue. */
  get underWay(): boolean {
    return this.tail !== null && this.queue.isQueued(this.tail);
  }
}
