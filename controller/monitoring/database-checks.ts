// Database probes as checks: each probe of a monitored database (controller/databases/monitor.ts:
// the same test as POST /api/databases/{id}/test, plus its size) becomes a health log and steps an
// alert state like every other check.
import type { Services } from '../services.js';
import type { MonitoringResult } from '../databases/monitoring-result.js';
import type { DatabaseRow } from '../store/repositories/databases.js';
import { alertPolicy } from './alert-policy.js';
import type { CheckResult } from './check-result.js';
import { recordCheck } from './record-check.js';

/** Pure: the check result of one database test. */
export function databaseCheck(db: DatabaseRow, t: { ok: boolean; message: string; durationMs: number }): CheckResult {
  const where = db.host && !db.containerName ? `${db.host}:${db.port}` : `container ${db.containerName}`;
  return {
    environmentId: db.environmentId, kind: 'database', checkKey: `database:${db.id}`, serverId: db.serverId, deploymentId: null,
    target: `database ${db.name} (${where})`, status: t.ok ? 'ok' : 'failed', latencyMs: t.durationMs,
    error: t.ok ? null : t.message.slice(0, 500), details: { databaseId: db.id, message: t.message.slice(0, 500) },
  };
}

/** The health log and alert step of one database probe: DatabaseOps calls it after every probe. */
export async function recordDatabaseProbe(s: Services, db: DatabaseRow, probe: MonitoringResult): Promise<void> {
  await recordCheck(s, databaseCheck(db, { ok: probe.reachable, message: probe.message, durationMs: probe.latencyMs }), await alertPolicy(s.notificationTypeSettings));
}

/**
 * Probes an environment's monitored databases now (the immediate run route). The scheduled probes
 * are DatabaseOps' (each database every collectionIntervalSec, claimed once across replicas);
 * both record through recordDatabaseProbe, so a database is never probed twice per interval.
 */
export async function checkDatabases(s: Services, environmentId: string): Promise<CheckResult[]> {
  const mine = (await s.databaseOps.ctx.databases.monitored()).filter((d) => d.environmentId === environmentId);
  return Promise.all(mine.map(async (db) => {
    const probe = await s.databaseOps.monitor(db);
    return databaseCheck(db, { ok: probe.reachable, message: probe.message, durationMs: probe.latencyMs });
  }));
}
