import type { Services } from '../services.js';
import type { Reconcilers } from '../model/reconcilers.js';
import { startManifestWatcher } from '../manifests/watcher.js';
import { startGitSourcePoller } from '../manifests/git/poller.js';
import { startHealthWorker } from '../servers/health-worker.js';
import { startConfigResync } from '../config-files/resync-worker.js';
import { startBackupScheduler } from '../databases/backup-worker.js';
import { startMetricsWorker } from '../monitoring/metrics-worker.js';
import { syncShippedTypes } from '../catalog/shipped-types-sync.js';

/** A background worker: starts with the service and returns how to stop it. */
export type Worker = (s: Services) => Promise<(() => Promise<void>) | void>;

/**
 * A worker only the leader replica runs (controller/queue/leadership.ts): started when this
 * replica is elected, stopped when it loses the lock, so two replicas never both run it.
 */
const leaderOnly = (name: string, start: Worker): Worker => async (s) => s.leadership.whileLeader(name, () => start(s));

/**
 * Every background worker (reconcilers, scheduler jobs, delivery loops, manifest watcher), in
 * one list, started in this order after migrations and stopped in reverse. Scheduler jobs run on
 * the leader only (controller/queue/scheduler.ts) wherever they are registered. The reconcilers'
 * own are handed in (controller/model/reconcilers.ts): controller/ never imports reconcilers/.
 */
export const workersWith = (reconcilers: Reconcilers['workers']): Array<{ name: string; start: Worker }> => [
  // once at start-up: service and database types a newer release ships join the catalog
  { name: 'shipped-types-sync', start: async (s) => { await syncShippedTypes(s); } },
  // heartbeat of running plans + recovery of plans a crashed process left running
  { name: 'deployment-plans', start: reconcilers.plans },
  // deployment reconciler: Docker events of every server, plan ends, and the periodic resync
  // (operations.driftPolicy decides between reporting and healing); every replica watches its
  // servers' events (its own deploys wait on them), the leader alone reconciles
  { name: 'deployment-reconciler', start: reconcilers.deployment },
  // proxy reconciler: the ingress proxy of each server, looked at on that server's Docker events
  // (published by the deployment reconciler's watches, so it starts after them)
  { name: 'proxy-reconciler', start: reconcilers.proxy },
  { name: 'server-health', start: startHealthWorker },
  // ssh metrics sampling, and the daily partitions of the samples (ahead, and past retention)
  { name: 'metrics', start: startMetricsWorker },
  { name: 'config-resync', start: startConfigResync },
  // image reconciler: update checks on each registry's refresh interval, auto-update outcomes
  { name: 'image-reconciler', start: leaderOnly('image-reconciler', reconcilers.image) },
  // certificates from ACME: every replica answers its queue keys (an order is locked per host),
  // the scheduler's pass (the leader's) enqueues hosts without one, due renewals and retries
  { name: 'certificates', start: reconcilers.certificate },
  // due database backups (then rotation) and restore drills
  { name: 'database-backups', start: startBackupScheduler },
  // due occurrences of scheduled jobs, each claimed once and run as a one-off run
  { name: 'jobs', start: reconcilers.jobs },
  {
    // Notification fan-out and the webhook/chat/email outbox.
    name: 'deliveries',
    async start(s) {
      await s.deliveries.start();
      s.scheduler.every('delivery-retention', 3600, () => s.deliveries.prune());
      return () => s.deliveries.stop();
    },
  },
  // last: its start-up apply hands changed services to the plan engine started above; one
  // watcher (the leader's) per folder, so a save is applied once
  { name: 'manifest-watcher', start: leaderOnly('manifest-watcher', startManifestWatcher) },
  // environments' Git sources: the manifests-source reconciler (every replica; a source's lease
  // keeps passes apart), its keys queued at start, by the poll tick (the leader's), push webhooks
  // and POST …/sync; applied through the same path as the folder
  { name: 'git-sources', start: startGitSourcePoller },
];
