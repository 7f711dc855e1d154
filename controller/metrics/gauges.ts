// The parts of /metrics read when Prometheus scrapes: the work queue's depth, the SSH and
// PostgreSQL pools, and what the store holds of alerts, backups and restores. A read that fails
// (the database is down) leaves its gauge out of that scrape rather than failing the others.
import type { Services } from '../services.js';
import type { QueueObserver } from '../queue/work-queue.js';
import type { Metrics } from './metrics.js';

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
