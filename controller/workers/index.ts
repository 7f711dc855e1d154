import type { Services } from '../services.js';

/** A background worker: starts with the service and returns how to stop it. */
export type Worker = (s: Services) => Promise<(() => Promise<void>) | void>;

/**
 * Every background worker (reconcilers, scheduler jobs, delivery loops, manifest watcher), in
 * one list, started in this order after migrations and stopped in reverse.
 */
export const WORKERS: Array<{ name: string; start: Worker }> = [
  {
    // Notification fan-out and the webhook/chat/email outbox.
    name: 'deliveries',
    async start(s) {
      await s.deliveries.start();
      return () => s.deliveries.stop();
    },
  },
];
