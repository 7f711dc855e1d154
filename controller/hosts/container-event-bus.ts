// The containers' Docker events as this process sees them, for whoever waits on one container (a
// deploy waiting for healthy). The per-server watches (reconcilers/deployment/deployment-worker.ts)
// publish; nothing here opens a stream of its own.
import type { ContainerEvent } from './docker-events.js';

export class ContainerEventBus {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Whether a server's events stream is open now (set by whoever runs the watches). */
  watching: (serverId: string) => boolean = () => false;

  private readonly listeners = new Set<(e: ContainerEvent) => void>();

  /** Every event, for a reconciler that looks at a whole server (the proxy's); returns how to stop listening. */
  onEvent(listener: (e: ContainerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(e: ContainerEvent): void {
    for (const l of this.listeners) l(e);
    const set = this.waiters.get(e.containerId);
    if (!set) return;
    this.waiters.delete(e.containerId);
    for (const wake of set) wake();
  }

  /**
   * Resolves at the container's next event or after `fallbackMs`, whichever is first. Taken
   * BEFORE looking at the container, so an event that lands while it is being inspected still
   * wakes the waiter. cancel() when the look made the wait unnecessary.
   */
  next(containerId: string, fallbackMs: number): { wait: Promise<void>; cancel: () => void } {
    let wake!: () => void;
    const wait = new Promise<void>((resolve) => { wake = resolve; });
    const timer = setTimeout(() => done(), fallbackMs);
    const done = () => {
      clearTimeout(timer);
      const set = this.waiters.get(containerId);
      set?.delete(done);
      if (set?.size === 0) this.waiters.delete(containerId);
      wake();
    };
    if (!this.waiters.has(containerId)) this.waiters.set(containerId, new Set());
    this.waiters.get(containerId)!.add(done);
    return { wait, cancel: done };
  }
}
