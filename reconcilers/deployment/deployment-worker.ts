// Starts the deployment reconciler and what tells it to look again: Docker events of every
// reachable server (within a second), the end of a plan (a healed deployment clears Drifted at
// once), and the periodic resync every SCHEDULER_DRIFT_CHECK_SEC as the safety net. Every replica
// watches; only the leader (controller/queue/leadership.ts) reconciles.
import type { Services } from '../../controller/services.js';
import { ResyncRound } from '../../controller/queue/resync-round.js';
import { DockerEventWatches } from '../../controller/hosts/docker-events.js';
import { concurrencyLimit } from '../../controller/queue/concurrency-limit.js';
import type { ServerWithKeyRow } from '../../controller/store/repositories/servers.js';
import { isTerminalPlan, type PlanStatus } from '../../controller/model/plan-states.js';
import { DEPLOYMENT_BATCH, DEPLOYMENT_KIND, deploymentKey, reconcileDeployments } from './reconcile.js';
import { driftPolicyOf } from './reconcile-drift.js';
import { syncPlacements } from '../service/placement.js';

/** How often the set of watched servers follows servers added, deleted or given a key. */
export const WATCH_SYNC_MS = 5000;
/** Streams that open within this window have their deployments enqueued by one query. */
const REOPENED_BATCH_MS = 200;
const OPENING_AT_ONCE = 8;
/** Event streams connecting at once (a connect and Docker's first answer: about a millisecond here). */
const CONNECTS_AT_ONCE = 32;

export async function startDeploymentWorker(s: Services): Promise<() => Promise<void>> {
  // one replica (the leader) reports and heals drift: a drift is healed by one plan, not one per replica
  s.queue.registerBatch(DEPLOYMENT_KIND, async (ids) => (s.leadership.isLeader ? reconcileDeployments(s, ids) : new Map()), DEPLOYMENT_BATCH);
  // streams (re)opened together (every server at start-up) are enqueued together: one query
  const reopened = new Set<string>();
  let flush: NodeJS.Timeout | null = null;
  const enqueueServer = (serverId: string) => {
    reopened.add(serverId);
    flush ??= setTimeout(() => {
      flush = null;
      const ids = [...reopened];
      reopened.clear();
      void s.deployments.listDeployedIdsOnServers(ids).then((found) => found.forEach((id) => s.queue.add(deploymentKey(id))),
        (err: unknown) => s.logger.warn('could not enqueue the deployments of servers', { servers: ids.length, error: String(err) }));
    }, REOPENED_BATCH_MS);
  };
  // the connection row of each server is read before its stream opens: a few at a time
  const opening = concurrencyLimit(OPENING_AT_ONCE);
  // a watch started by a sync opens with the row that sync read (one query for every server, not
  // one each); an opening after a loss reads its row again (its settings may have changed since)
  let synced = new Map<string, ServerWithKeyRow>();

  const watches = new DockerEventWatches({
    docker: (serverId) => {
      const row = synced.get(serverId);
      return row ? s.hosts.docker(serverId, row) : opening(() => s.hosts.docker(serverId));
    },
    onEvent: (e) => {
      s.hosts.containerEvents.publish(e);
      if (e.deploymentId) s.queue.add(deploymentKey(e.deploymentId));
    },
    // the stream was (re)opened: what happened while it was down was not seen
    onConnected: enqueueServer,
    onReconnected: () => s.metrics.dockerEventReconnects.inc(),
    logger: s.logger,
    connectsAtOnce: CONNECTS_AT_ONCE,
  });
  s.hosts.containerEvents.watching = (serverId) => watches.isConnected(serverId);
  let syncing = false;
  const syncWatches = async () => {
    if (syncing) return;
    syncing = true;
    try {
      const ids = await s.servers.listReachableIds();
      // the watches a sync starts ask for their server's Docker at once, within sync(): their rows in one read
      const fresh = ids.filter((id) => !watches.has(id));
      synced = new Map((await s.servers.withEnvironmentKeys(fresh)).map((r) => [r.id, r]));
      try {
        watches.sync(ids);
      } finally {
        synced = new Map();
      }
    } catch (err) {
      s.logger.warn('docker event watches could not be synced', { error: String(err) });
    } finally {
      syncing = false;
    }
  };
  await syncWatches();
  const timer = setInterval(() => void syncWatches(), WATCH_SYNC_MS);
  timer.unref();

  const unsubscribe = s.events.subscribe((e) => {
    if (e.type !== 'plan.updated' || !isTerminalPlan(e.data.status as PlanStatus) || !s.leadership.isLeader) return;
    void s.plans.steps.deploymentIdsOf(String(e.data.planId)).then(
      (ids) => ids.forEach((id) => s.queue.add(deploymentKey(id))),
      (err: unknown) => s.logger.warn('could not enqueue the deployments of a finished plan', { planId: e.data.planId, error: String(err) }),
    );
  });

  const round = new ResyncRound(s.queue);
  const lookAtAll = async () => {
    const { items } = await s.environments.list({}, { limit: 100_000, offset: 0 });
    for (const env of items) {
      // the safety net of placement by selector: a label written straight to the store is followed here
      await syncPlacements(s, env.id).catch((err: unknown) => s.logger.warn('could not place services by selector', { environmentId: env.id, error: String(err) }));
      if ((await driftPolicyOf(s, env.id)) === 'off') continue;
      for (const id of await s.deployments.listDeployedIds(env.id)) round.add(deploymentKey(id));
    }
  };
  // the round still waiting is looked at first; the next tick after it starts the next (resync-round.ts)
  const lookAgain = async () => {
    if (round.underWay) {
      s.logger.debug('drift check skipped: the last resync is still under way', { queued: s.queue.depth().queued });
      return;
    }
    await lookAtAll();
  };
  s.scheduler.every('drift-check', s.config.scheduler.driftCheckSec, lookAgain);
  // a replica that becomes the leader looks at everything once: it reconciled nothing while it followed
  const stopLeading = s.leadership.whileLeader('deployment-resync', () => lookAtAll().catch((err: unknown) =>
    s.logger.warn('could not enqueue the deployments for the new leader', { error: String(err) })));

  return async () => {
    await stopLeading();
    clearInterval(timer);
    if (flush) clearTimeout(flush);
    unsubscribe();
    s.hosts.containerEvents.watching = () => false;
    watches.close();
  };
}
