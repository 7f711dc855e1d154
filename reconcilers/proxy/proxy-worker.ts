// Starts the proxy reconciler and what tells it to look at a server again: any Docker event of a
// managed container there (a container healthy, stopped or removed, the proxy itself removed by
// hand), the end of a plan on it, a service's ingress written without a plan (ingress.changed,
// from the API or a manifest apply, heard by every replica), a certificate from ACME stored for
// one of its hosts (certificate.changed), and the periodic resync (SCHEDULER_DRIFT_CHECK_SEC)
// over every reachable server as the safety net (a server whose proxy is no longer needed).
// Only the leader reconciles.
import type { Services } from '../../controller/services.js';
import { isTerminalPlan, type PlanStatus } from '../../controller/model/plan-states.js';
import { CERTIFICATE_CHANGED } from '../../controller/ingress/acme/held-certificates.js';
import { INGRESS_CHANGED } from '../../controller/model/ingress.js';
import { PROXY_KIND, proxyKey, proxyRowsOf, reconcileProxy } from './reconcile-proxy.js';
import { ResyncRound } from '../../controller/queue/resync-round.js';
import { concurrencyLimit } from '../../controller/queue/concurrency-limit.js';
import type { ReconcileResult } from '../../controller/queue/work-queue.js';

/** Servers of one batch: their rows are read with three queries when it starts. */
const PROXY_BATCH = 32;
/** Reconciles of one batch that run at once (a batch counts as its keys against the queue's concurrency). */
const RECONCILES_AT_ONCE = 4;

type Outcome = PromiseSettledResult<ReconcileResult | void>;

/** The proxies of a batch of servers; each server's outcome is its own (a failed one retries alone). */
async function reconcileProxies(s: Services, serverIds: string[]): Promise<Map<string, Outcome>> {
  const rows = await proxyRowsOf(s, serverIds);
  const limit = concurrencyLimit(RECONCILES_AT_ONCE);
  const outcomes = await Promise.allSettled(serverIds.map((id) => limit(async () => {
    const seen = await reconcileProxy(s, id, rows.get(id));
    if (seen.problem) s.logger.warn('the proxy does not route as desired', { serverId: id, problem: seen.problem });
  })));
  return new Map(serverIds.map((id, i) => [id, outcomes[i]!]));
}

/** The servers named: their proxies look again. */
export function lookAtServers(s: Pick<Services, 'queue'>, serverIds: Iterable<string>): void {
  for (const id of new Set(serverIds)) s.queue.add(proxyKey(id));
}

/** The servers whose proxies serve `host` for a service of the environment. */
async function serversServing(s: Services, environmentId: string, host: string): Promise<string[]> {
  const claims = (await s.services.listIngressClaims()).filter((c) => c.environmentId === environmentId && c.ingress.hosts.some((h) => h.toLowerCase() === host));
  if (!claims.length) return [];
  return (await s.deployments.listByServices(claims.map((c) => c.serviceId))).map((d) => d.serverId);
}

export async function startProxyWorker(s: Services): Promise<() => Promise<void>> {
  s.queue.registerBatch(PROXY_KIND, async (ids) => (s.leadership.isLeader ? reconcileProxies(s, ids) : new Map()), PROXY_BATCH);
  const stopEvents = s.hosts.containerEvents.onEvent((e) => { if (s.leadership.isLeader) s.queue.add(proxyKey(e.serverId)); });
  const unsubscribe = s.events.subscribe((e) => {
    if (e.type === CERTIFICATE_CHANGED && s.leadership.isLeader && e.environmentId) {
      void serversServing(s, e.environmentId, String(e.data.host).toLowerCase()).then((ids) => lookAtServers(s, ids),
        (err: unknown) => s.logger.warn('could not enqueue the proxies of a new certificate', { host: e.data.host, error: String(err) }));
      return;
    }
    if (e.type === INGRESS_CHANGED && s.leadership.isLeader) {
      const named = e.data.serverIds as string[] | undefined;
      void (named ? Promise.resolve(named) : s.deployments.listByService(String(e.data.serviceId)).then((ds) => ds.map((d) => d.serverId)))
        .then((ids) => lookAtServers(s, ids),
          (err: unknown) => s.logger.warn('could not enqueue the proxies of a changed ingress', { serviceId: e.data.serviceId, error: String(err) }));
      return;
    }
    if (e.type !== 'plan.updated' || !isTerminalPlan(e.data.status as PlanStatus) || !s.leadership.isLeader) return;
    void s.plans.steps.serverIdsOf(String(e.data.planId)).then((ids) => lookAtServers(s, ids),
      (err: unknown) => s.logger.warn('could not enqueue the proxies of a finished plan', { planId: e.data.planId, error: String(err) }));
  });
  const round = new ResyncRound(s.queue);
  const lookAtAll = async () => {
    for (const id of await s.servers.listReachableIds()) round.add(proxyKey(id));
  };
  // a round longer than the period is not joined by the next tick (resync-round.ts)
  s.scheduler.every('proxy-resync', s.config.scheduler.driftCheckSec, async () => {
    if (round.underWay) s.logger.debug('proxy resync skipped: the last one is still under way', { queued: s.queue.depth().queued });
    else await lookAtAll();
  });
  const stopLeading = s.leadership.whileLeader('proxy-resync', () => lookAtAll().catch((err: unknown) =>
    s.logger.warn('could not enqueue the proxies for the new leader', { error: String(err) })));
  return async () => {
    await stopLeading();
    stopEvents();
    unsubscribe();
  };
}
