// The parts of /metrics read when Prometheus scrapes: the work queue's depth, the SSH and
// PostgreSQL pools, and what the store holds of alerts, backups and restores. A read that fails
// (the database is down) leaves its gauge out of that scrape rather than failing the others.
import type { Services } from '../services.js';
import type { QueueObserver } from '../queue/work-queue.js';
import type { Collect, Metrics } from './metrics.js';

/** The work queue tells /metrics of each reconcile pass and each retry. */
export function queueObserver(m: Metrics): QueueObserver {
  return {
    settled: (kind, result, seconds) => m.reconcileDuration.observe({ kind, result }, seconds),
    retried: (kind) => m.reconcileRetries.inc({ kind }),
  };
}

interface KnexPool { numUsed(): number; numFree(): number; numPendingAcquires(): number }

export function registerGauges(s: Services): void {
  const m = s.metrics;
  m.gauge('stevedore_work_queue_depth', 'Keys in the reconcile work queue: queued, running, or waiting out a retry delay', ['state'], (set) => {
    const d = s.queue.depth();
    set({ state: 'queued' }, d.queued);
    set({ state: 'running' }, d.running);
    set({ state: 'delayed' }, d.delayed);
  });
  m.gauge('stevedore_ssh_pool_connections', 'Servers with a pooled SSH connection open or opening', [], (set) => set({}, s.hosts.pool.connections()));
  m.gauge('stevedore_postgres_pool_connections', 'Connections of the PostgreSQL pool: in use, idle, and requests waiting for one', ['state'], (set) => {
    const pool = (s.db.client as { pool?: KnexPool }).pool;
    if (!pool) return;
    set({ state: 'used' }, pool.numUsed());
    set({ state: 'idle' }, pool.numFree());
    set({ state: 'waiting' }, pool.numPendingAcquires());
  });
  if (m.perService) fleetGauges(s);
  // names environments and hosts: behind METRICS_TOKEN like the per-service series
  if (m.perService) {
    m.gauge('stevedore_certificate_expiry_timestamp_seconds', 'When the certificate held for a host expires (its notAfter), in seconds since the epoch', ['environment', 'host'], async (set) => {
      for (const c of await s.certificates.expiries().catch(() => [])) set({ environment: c.environment, host: c.host }, Math.floor(c.notAfter.getTime() / 1000));
    });
  }
  m.gauge('stevedore_alerts', 'Monitoring checks by alert state (up, down)', ['state'], async (set) => {
    for (const r of await s.alertStates.countByStatus().catch(() => [])) set({ state: r.status }, r.count);
  });
  m.gauge('stevedore_backups', 'Database backups held in the store, by status', ['status'], async (set) => {
    for (const r of await s.databaseOps.ctx.backups.countByStatus().catch(() => [])) set({ status: r.status }, r.count);
  });
  m.gauge('stevedore_restores', 'Restores and drills held in the store, by target (drill, restore, …) and status', ['target', 'status'], async (set) => {
    for (const r of await s.databaseOps.ctx.restores.countByTargetAndStatus().catch(() => [])) set({ target: r.target, status: r.status }, r.count);
  });
}

/**
 * Per service and server (only behind METRICS_TOKEN: they name the fleet and its tags): one read
 * of the store per scrape feeds the five families.
 */
function fleetGauges(s: Services): void {
  const m = s.metrics;
  let fleet: ReturnType<typeof s.fleetSeries.read> | null = null;
  const fleetRead = () => (fleet ??= s.fleetSeries.read().finally(() => setImmediate(() => { fleet = null; })));
  const fromFleet = (name: string, help: string, labels: string[], each: (f: Awaited<ReturnType<typeof s.fleetSeries.read>>, set: Parameters<Collect>[0]) => void) =>
    m.gauge(name, help, labels, async (set) => {
      const f = await fleetRead().catch(() => null);
      if (f) each(f, set);
    });
  fromFleet('stevedore_service_ready', 'Whether the service is Ready (1) or not (0): every deployment runs its desired spec', ['environment', 'service'], (f, set) => {
    for (const x of f.services) set({ environment: x.environment, service: x.service }, x.ready ? 1 : 0);
  });
  fromFleet('stevedore_service_drifted', 'Whether a deployment of the service is Drifted (1) or none is (0)', ['environment', 'service'], (f, set) => {
    for (const x of f.services) set({ environment: x.environment, service: x.service }, x.drifted ? 1 : 0);
  });
  fromFleet('stevedore_deployment_running_info', 'A container last seen running, with the tag it runs (always 1)', ['environment', 'service', 'server', 'container', 'tag'], (f, set) => {
    for (const x of f.running) set({ environment: x.environment, service: x.service, server: x.server, container: x.container, tag: x.tag }, 1);
  });
  fromFleet('stevedore_server_ready', 'Whether the server is Ready (1: reachable, Docker answers) or not (0)', ['environment', 'server'], (f, set) => {
    for (const x of f.servers) set({ environment: x.environment, server: x.server }, x.ready ? 1 : 0);
  });
  fromFleet('stevedore_server_drifted_deployments', 'Deployments on the server whose container is Drifted', ['environment', 'server'], (f, set) => {
    for (const x of f.servers) set({ environment: x.environment, server: x.server }, x.driftedDeployments);
  });
}
